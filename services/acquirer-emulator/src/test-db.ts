import { join } from "node:path";
import { openStore } from "@payaccept/platform";
import { schema } from "./store/schema.ts";

/** For unit tests: a fresh in-memory store with every migration applied. */
export const freshDb = () => openStore(":memory:", schema, join(import.meta.dir, "../drizzle")).db;
export type TestDb = ReturnType<typeof freshDb>;
export const HOLD_TTL_MS = 7 * 24 * 3600 * 1000;
