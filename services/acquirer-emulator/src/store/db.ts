import type { BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import type { schema } from "./schema.ts";

export type AcquirerDb = BunSQLiteDatabase<typeof schema>;
/** The handle inside `db.transaction`: domain steps that must commit together take it. */
export type AcquirerTx = Parameters<Parameters<AcquirerDb["transaction"]>[0]>[0];
