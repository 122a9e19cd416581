export * from "./primitives.ts";
export * from "./api.ts";
export * from "./errors.ts";
export * from "./events.ts";
export * from "./directory.ts";
export * from "./rpc.ts";
export * from "./provider.ts";
