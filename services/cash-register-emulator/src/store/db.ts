import type { BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import type { schema } from "./schema.ts";

export type RegisterDb = BunSQLiteDatabase<typeof schema>;
