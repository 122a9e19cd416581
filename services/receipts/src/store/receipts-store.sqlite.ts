import { openStore, SerialSqlite, sqliteDb, sqliteRun } from "@payaccept/platform";
import type { ReceiptsStore } from "./receipts-store.ts";
import { receiptsOps } from "./receipts-terms.ts";
import { schema } from "./schema.sqlite.ts";

/**
 * The receipts in their SQLite file, queued by SerialSqlite so that a transaction's statements
 * are the only ones inside it; replicas on one host share the file through its write lock.
 */
export function openSqliteReceiptsStore(path: string, migrationsFolder: string): ReceiptsStore {
  const { sqlite, db } = openStore(path, schema, migrationsFolder);
  const serial = new SerialSqlite(sqlite);
  const ops = receiptsOps(sqliteDb(db), sqliteRun, schema);
  return {
    ...serial.outsideTx(ops),
    // In a transaction: the file's write lock makes the claim one step for every process.
    claimDue: (now, limit, leaseUntil) => serial.tx(() => ops.claimDue(now, limit, leaseUntil)),
    // The whole file is the lock: every payment's units run one at a time, in every process.
    forPayment: (_paymentId, fn) => serial.tx(() => fn(ops)),
    close: async () => serial.exclusive(() => sqlite.close()),
  };
}
