import { and, asc, count, eq, inArray, isNotNull, lte, min } from "drizzle-orm";
import type { Db, Dialect, EitherTables, Run } from "@payaccept/platform";
import type { OnEither } from "@payaccept/platform/table";
import { newReceiptRow, type ReceiptsOps } from "./receipts-repo.ts";
import type * as tables from "./schema.ts";

/**
 * What both engines' receipt statements share, on either schema's columns: the terms, and the
 * methods themselves (`receiptsOps`), written once over `Db<E>` and run by the engine's `Run<E>`.
 */

type Receipts = OnEither<typeof tables.receipts>;

/** A payment's receipts in the order they were made (sale first). */
const receiptOrder = (r: Receipts) => [asc(r.createdAt), asc(r.id)];

/** The shop's receipts of these payments, grouped by payment, each payment's in the order they were made. */
const ofShopPayments = (r: Receipts, shopId: string, paymentIds: string[]) => and(eq(r.shopId, shopId), inArray(r.paymentId, paymentIds));
const byPaymentOrder = (r: Receipts) => [asc(r.paymentId), ...receiptOrder(r)];

/** Receipts whose next attempt is due, and their order: the longest waiting first. */
const isDue = (r: Receipts, now: number) => lte(r.nextAttemptAt, now);
const dueOrder = (r: Receipts) => asc(r.nextAttemptAt);

/**
 * ReceiptsOps on either engine: `db` is the store or the transaction's handle, `run` the engine's
 * way of running a statement.
 */
export function receiptsOps<E extends Dialect>(db: Db<E>, run: Run<E>, { receipts }: EitherTables<typeof tables.tables>): ReceiptsOps {
  const byDedupeKey = (dedupeKey: string) => eq(receipts.dedupeKey, dedupeKey);
  return {
    byId: (id) => run.one(db.select().from(receipts).where(eq(receipts.id, id))),
    insert: (input, now) => run.one(db.insert(receipts).values(newReceiptRow(input, now)).onConflictDoNothing({ target: receipts.dedupeKey }).returning()),
    existsKey: async (dedupeKey) => (await run.one(db.select({ id: receipts.id }).from(receipts).where(byDedupeKey(dedupeKey)))) !== undefined,
    statusOf: async (dedupeKey) => (await run.one(db.select({ status: receipts.status }).from(receipts).where(byDedupeKey(dedupeKey))))?.status,
    ofPayment: (paymentId) => run.all(db.select().from(receipts).where(eq(receipts.paymentId, paymentId)).orderBy(...receiptOrder(receipts))),
    ofPayments: (shopId, paymentIds) => run.all(db.select().from(receipts).where(ofShopPayments(receipts, shopId, paymentIds)).orderBy(...byPaymentOrder(receipts))),
    countsByStatus: () => run.all(db.select({ status: receipts.status, n: count() }).from(receipts).groupBy(receipts.status)),
    // One statement: on PostgreSQL the due rows another replica is claiming right now are skipped,
    // not waited for; on SQLite the caller's transaction holds the file (ReceiptsRepo.claimDue).
    claimDue: (now, limit, leaseUntil) => {
      const due = db.select({ id: receipts.id }).from(receipts).where(isDue(receipts, now)).orderBy(dueOrder(receipts)).limit(limit);
      return run.all(db.update(receipts).set({ nextAttemptAt: leaseUntil }).where(inArray(receipts.id, run.forUpdate(due, { skipLocked: true }))).returning());
    },
    nextDueAt: async () => {
      const at = (await run.one(db.select({ at: min(receipts.nextAttemptAt) }).from(receipts).where(isNotNull(receipts.nextAttemptAt))))?.at;
      return at === null || at === undefined ? null : Number(at);
    },
    update: async (id, patch, now) => (await run.one(db.update(receipts).set({ ...patch, updatedAt: now }).where(eq(receipts.id, id)).returning()))!,
  };
}
