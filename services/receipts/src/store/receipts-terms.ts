import { and, asc, count, desc, eq, inArray, isNotNull, lte, min } from "drizzle-orm";
import type { Reason } from "@payaccept/contracts";
import type { Db, Dialect, EitherTables, Run } from "@payaccept/platform";
import type { OnEither } from "@payaccept/platform/table";
import { newReceiptRow, type ReceiptsOps } from "./receipts-store.ts";
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

/**
 * The receipt as its document `generation` left it, while still on its way (PENDING or SENT):
 * what an attempt's result or a register's callback may change. A REGISTERED receipt is final, a
 * FAILED one waits for an operator, and a newer generation is another document.
 */
const isCurrentOpen = (r: Receipts, id: string, generation: number) => and(eq(r.id, id), eq(r.generation, generation), inArray(r.status, ["PENDING", "SENT"]));

/** Receipts whose next attempt is due, and their order: the longest waiting first. */
const isDue = (r: Receipts, now: number) => lte(r.nextAttemptAt, now);
const dueOrder = (r: Receipts) => asc(r.nextAttemptAt);

/** FAILED receipts (of one last error, when given), the latest failed first (receipts_failed_idx). */
const isFailed = (r: Receipts, reason: Reason | undefined) => and(eq(r.status, "FAILED"), reason ? eq(r.lastErrorCode, reason) : undefined);
const failedOrder = (r: Receipts) => [desc(r.updatedAt), desc(r.id)];

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
    failed: (limit, reason) => run.all(db.select().from(receipts).where(isFailed(receipts, reason)).orderBy(...failedOrder(receipts)).limit(limit)),
    countsByStatus: () => run.all(db.select({ status: receipts.status, n: count() }).from(receipts).groupBy(receipts.status)),
    // One statement: on PostgreSQL the due rows another replica is claiming right now are skipped,
    // not waited for; on SQLite the caller's transaction holds the file (ReceiptsStore.claimDue).
    claimDue: (now, limit, leaseUntil) => {
      const due = db.select({ id: receipts.id }).from(receipts).where(isDue(receipts, now)).orderBy(dueOrder(receipts)).limit(limit);
      return run.all(db.update(receipts).set({ nextAttemptAt: leaseUntil }).where(inArray(receipts.id, run.forUpdate(due, { skipLocked: true }))).returning());
    },
    nextDueAt: async () => {
      const at = (await run.one(db.select({ at: min(receipts.nextAttemptAt) }).from(receipts).where(isNotNull(receipts.nextAttemptAt))))?.at;
      return at === null || at === undefined ? null : Number(at);
    },
    update: async (id, patch, now) => (await run.one(db.update(receipts).set({ ...patch, updatedAt: now }).where(eq(receipts.id, id)).returning()))!,
    updateIfCurrent: (id, generation, patch, now) => run.one(db.update(receipts).set({ ...patch, updatedAt: now }).where(isCurrentOpen(receipts, id, generation)).returning()),
  };
}
