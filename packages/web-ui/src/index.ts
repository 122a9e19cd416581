export * from "./assets.ts";
export * from "./csrf.ts";
export * from "./lang.ts";
export * from "./money.ts";
export * from "./moscow-format.ts";
export * from "./page-status.ts";
export * from "./security-headers.ts";
export * from "./reason-text.ts";
