import { eq } from "drizzle-orm";
import { pgDb, pgRun, type PgStore } from "@payaccept/platform";
import { saleKey } from "../recording.ts";
import type { ReceiptsOps, ReceiptsStore } from "./receipts-store.ts";
import { receiptsOps } from "./receipts-terms.ts";
import { receipts, schema } from "./schema.pg.ts";

type Db = PgStore<typeof schema>["db"];
/** The receipts on PostgreSQL (docs/receipts.md, "Locks"): statements on the runner given (the pool, or the open transaction). */
const pgOps = (db: Pick<Db, "select" | "insert" | "update" | "delete">): ReceiptsOps => receiptsOps(pgDb(db), pgRun, schema);

export function openPgReceiptsStore({ db, close }: PgStore<typeof schema>): ReceiptsStore {
  return {
    ...pgOps(db),
    forPayment: (paymentId, fn) =>
      db.transaction(async (tx) => {
        // The sale receipt's row is the payment's lock (SQLite: the file's): refund receipts
        // computed from it and from each other run one after the other. No sale row: nothing to
        // refund, nothing to lock.
        await tx.select({ id: receipts.id }).from(receipts).where(eq(receipts.dedupeKey, saleKey(paymentId))).for("update");
        return fn(pgOps(tx));
      }),
    close,
  };
}
