import { count, eq, inArray, isNotNull, min } from "drizzle-orm";
import { openStore, SerialSqlite } from "@payaccept/platform";
import { newReceiptRow, type ReceiptsOps, type ReceiptsRepo } from "./receipts-repo.ts";
import { byPaymentOrder, dueOrder, failedOrder, isCurrentOpen, isDue, isFailed, ofShopPayments, receiptOrder } from "./receipts-terms.ts";
import { receipts, schema } from "./schema.sqlite.ts";

/**
 * The receipts in their SQLite file, queued by SerialSqlite so that a transaction's statements
 * are the only ones inside it; replicas on one host share the file through its write lock.
 */
export function openSqliteReceiptsRepo(path: string, migrationsFolder: string): ReceiptsRepo {
  const { sqlite, db } = openStore(path, schema, migrationsFolder);
  const serial = new SerialSqlite(sqlite);

  const ops: ReceiptsOps = {
    byId: async (id) => db.select().from(receipts).where(eq(receipts.id, id)).get(),
    insert: async (input, now) => db.insert(receipts).values(newReceiptRow(input, now)).onConflictDoNothing({ target: receipts.dedupeKey }).returning().get(),
    existsKey: async (dedupeKey) => db.select({ id: receipts.id }).from(receipts).where(eq(receipts.dedupeKey, dedupeKey)).get() !== undefined,
    statusOf: async (dedupeKey) => db.select({ status: receipts.status }).from(receipts).where(eq(receipts.dedupeKey, dedupeKey)).get()?.status,
    ofPayment: async (paymentId) => db.select().from(receipts).where(eq(receipts.paymentId, paymentId)).orderBy(...receiptOrder(receipts)).all(),
    ofPayments: async (shopId, paymentIds) =>
      db
        .select()
        .from(receipts)
        .where(ofShopPayments(receipts, shopId, paymentIds))
        .orderBy(...byPaymentOrder(receipts))
        .all(),
    failed: async (limit, reason) => db.select().from(receipts).where(isFailed(receipts, reason)).orderBy(...failedOrder(receipts)).limit(limit).all(),
    countsByStatus: async () => db.select({ status: receipts.status, n: count() }).from(receipts).groupBy(receipts.status).all(),
    // Called inside tx(): the file's write lock makes the read and the moves one step for every process.
    claimDue: async (now, limit, leaseUntil) => {
      const ids = db.select({ id: receipts.id }).from(receipts).where(isDue(receipts, now)).orderBy(dueOrder(receipts)).limit(limit).all();
      if (ids.length === 0) return [];
      return db.update(receipts).set({ nextAttemptAt: leaseUntil }).where(inArray(receipts.id, ids.map((r) => r.id))).returning().all();
    },
    nextDueAt: async () => db.select({ at: min(receipts.nextAttemptAt) }).from(receipts).where(isNotNull(receipts.nextAttemptAt)).get()?.at ?? null,
    update: async (id, patch, now) => db.update(receipts).set({ ...patch, updatedAt: now }).where(eq(receipts.id, id)).returning().get()!,
    updateIfCurrent: async (id, generation, patch, now) =>
      db.update(receipts).set({ ...patch, updatedAt: now }).where(isCurrentOpen(receipts, id, generation)).returning().get(),
  };

  const outside = serial.outsideTx(ops);
  return {
    ...outside,
    claimDue: (now, limit, leaseUntil) => serial.tx(() => ops.claimDue(now, limit, leaseUntil)),
    // The whole file is the lock: every payment's units run one at a time, in every process.
    forPayment: (_paymentId, fn) => serial.tx(() => fn(ops)),
    close: async () => serial.exclusive(() => sqlite.close()),
  };
}
