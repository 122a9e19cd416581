export * from "./moscow-time.ts";
export * from "./net-guard.ts";
