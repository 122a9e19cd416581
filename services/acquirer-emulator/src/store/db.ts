import type { BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import type { schema } from "./schema.ts";

export type AcquirerDb = BunSQLiteDatabase<typeof schema>;
declare const openTransaction: unique symbol;
/**
 * The database while one of its transactions is open: domain steps that must commit together take
 * it, and only `inTransaction` makes one, so handing them the plain database fails typecheck. The
 * store is one connection, so what runs on the database inside the callback, the statements
 * prepared once (store/statements.ts) included, is part of the transaction.
 */
export type AcquirerTx = AcquirerDb & { readonly [openTransaction]: true };

/**
 * Runs `fn` in one IMMEDIATE transaction: it takes the file's write lock up front, so it waits for
 * another writer instead of failing on an upgrade from a read lock.
 */
export const inTransaction = <T>(db: AcquirerDb, fn: (tx: AcquirerTx) => T): T => db.transaction(() => fn(db as AcquirerTx), { behavior: "immediate" });
