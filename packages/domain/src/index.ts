export * from "./moscow-time.ts";
export * from "./net-guard.ts";
export * from "./card-brand.ts";
