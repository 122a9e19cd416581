import { join } from "node:path";
import { and, desc, eq, gt, gte, isNull, lt, lte, sql } from "drizzle-orm";
import { openStore } from "@payaccept/platform";
import * as schema from "./schema.ts";
import { accounts, appliedEvents, frozenBuckets, payouts, refunds } from "./schema.ts";

const MIGRATIONS = join(import.meta.dir, "../../drizzle");
const p = sql.placeholder;

export type AppliedEvent = typeof appliedEvents.$inferInsert;
export type RefundRow = typeof refunds.$inferSelect;
export type PayoutRow = typeof payouts.$inferSelect;

/**
 * The ledger's statements, prepared once. Every method runs on the one SQLite connection, so a
 * call made inside tx() is part of that transaction.
 */
export type LedgerStore = ReturnType<typeof openLedgerStore>;

export function openLedgerStore(path: string) {
  const { sqlite, db } = openStore(path, schema, MIGRATIONS);

  const insertEvent = db.insert(appliedEvents).values({
    paymentId: p("paymentId"),
    status: p("status"),
    accountId: p("accountId"),
    shopId: p("shopId"),
    amountKopecks: p("amountKopecks"),
    commissionKopecks: p("commissionKopecks"),
    netKopecks: p("netKopecks"),
    paidAt: p("paidAt"),
    moscowDay: p("moscowDay"),
    occurredAt: p("occurredAt"),
    appliedAt: p("appliedAt"),
  }).onConflictDoNothing().returning({ paymentId: appliedEvents.paymentId }).prepare();

  const addToBucket = db.insert(frozenBuckets).values({
    accountId: p("accountId"),
    moscowDay: p("moscowDay"),
    amountKopecks: p("amountKopecks"),
  }).onConflictDoUpdate({
    target: [frozenBuckets.accountId, frozenBuckets.moscowDay],
    set: { amountKopecks: sql`${frozenBuckets.amountKopecks} + excluded.amount_kopecks` },
  }).prepare();

  const releasedSum = db
    .select({ total: sql<number>`coalesce(sum(${frozenBuckets.amountKopecks}), 0)`, buckets: sql<number>`count(*)` })
    .from(frozenBuckets)
    .where(and(eq(frozenBuckets.accountId, p("accountId")), lte(frozenBuckets.moscowDay, p("lastReleasedDay"))))
    .prepare();

  const deleteReleased = db
    .delete(frozenBuckets)
    .where(and(eq(frozenBuckets.accountId, p("accountId")), lte(frozenBuckets.moscowDay, p("lastReleasedDay"))))
    .prepare();

  const frozenSum = db
    .select({ total: sql<number>`coalesce(sum(${frozenBuckets.amountKopecks}), 0)` })
    .from(frozenBuckets)
    .where(and(eq(frozenBuckets.accountId, p("accountId")), gt(frozenBuckets.moscowDay, p("lastReleasedDay"))))
    .prepare();

  const adjust = db.insert(accounts).values({
    accountId: p("accountId"),
    availableKopecks: p("deltaKopecks"),
    updatedAt: p("at"),
  }).onConflictDoUpdate({
    target: accounts.accountId,
    set: {
      availableKopecks: sql`${accounts.availableKopecks} + excluded.available_kopecks`,
      updatedAt: sql`excluded.updated_at`,
    },
  }).prepare();

  // The check and the debit are one statement, so no interleaving can take the same money twice.
  const debitWithin = db
    .update(accounts)
    .set({ availableKopecks: sql`${accounts.availableKopecks} - ${p("amountKopecks")}`, updatedAt: sql`${p("at")}` })
    .where(and(eq(accounts.accountId, p("accountId")), gte(accounts.availableKopecks, p("amountKopecks"))))
    .returning({ availableKopecks: accounts.availableKopecks })
    .prepare();

  const available = db
    .select({ availableKopecks: accounts.availableKopecks })
    .from(accounts)
    .where(eq(accounts.accountId, p("accountId")))
    .prepare();

  const refundOf = db.select().from(refunds).where(eq(refunds.paymentId, p("paymentId"))).prepare();
  const insertRefund = db.insert(refunds).values({
    paymentId: p("paymentId"),
    accountId: p("accountId"),
    amountKopecks: p("amountKopecks"),
    reservedAt: p("reservedAt"),
    refundedAt: p("refundedAt"),
  }).prepare();
  const markRefunded = db
    .update(refunds)
    .set({ amountKopecks: sql`${p("amountKopecks")}`, accountId: sql`${p("accountId")}`, refundedAt: sql`${p("at")}` })
    .where(eq(refunds.paymentId, p("paymentId")))
    .prepare();
  const deletePendingRefund = db
    .delete(refunds)
    .where(and(eq(refunds.paymentId, p("paymentId")), eq(refunds.accountId, p("accountId")), isNull(refunds.refundedAt)))
    .returning()
    .prepare();

  const insertPayout = db.insert(payouts).values({
    id: p("id"),
    accountId: p("accountId"),
    amountKopecks: p("amountKopecks"),
    status: sql`'PENDING'`,
    idempotencyKey: p("idempotencyKey"),
    createdAt: p("createdAt"),
  }).returning().prepare();
  const payoutByKey = db
    .select()
    .from(payouts)
    .where(and(eq(payouts.accountId, p("accountId")), eq(payouts.idempotencyKey, p("idempotencyKey"))))
    .prepare();
  const markPaid = db
    .update(payouts)
    .set({ status: "PAID", paidAt: sql`${p("at")}` })
    .where(and(eq(payouts.id, p("id")), eq(payouts.status, "PENDING")))
    .prepare();
  const payoutById = db.select().from(payouts).where(eq(payouts.id, p("id"))).prepare();
  const pendingPayouts = db.select({ id: payouts.id }).from(payouts).where(eq(payouts.status, "PENDING")).prepare();
  const latestPayouts = db
    .select()
    .from(payouts)
    .where(and(eq(payouts.accountId, p("accountId")), lt(payouts.id, p("before"))))
    .orderBy(desc(payouts.id))
    .limit(p("limit"))
    .prepare();

  return {
    /** BEGIN IMMEDIATE: takes the write lock up front so a read-then-write never loses a race to another process. */
    tx<T>(fn: () => T): T {
      return sqlite.transaction(fn).immediate();
    },
    close(): void {
      sqlite.close();
    },
    /** False when (paymentId, status) was applied before. */
    recordEvent(e: Required<AppliedEvent>): boolean {
      return insertEvent.get(e) !== undefined;
    },
    addFrozen(accountId: string, moscowDay: string, amountKopecks: number): void {
      addToBucket.run({ accountId, moscowDay, amountKopecks });
    },
    releasedFrozen(accountId: string, lastReleasedDay: string): { total: number; buckets: number } {
      return releasedSum.get({ accountId, lastReleasedDay })!;
    },
    deleteReleasedFrozen(accountId: string, lastReleasedDay: string): void {
      deleteReleased.run({ accountId, lastReleasedDay });
    },
    frozenTotal(accountId: string, lastReleasedDay: string): number {
      return frozenSum.get({ accountId, lastReleasedDay })!.total;
    },
    available(accountId: string): number {
      return available.get({ accountId })?.availableKopecks ?? 0;
    },
    adjustAvailable(accountId: string, deltaKopecks: number, at: number): void {
      adjust.run({ accountId, deltaKopecks, at });
    },
    /** False (and nothing taken) when the available balance is smaller than the amount. */
    debitIfAvailable(accountId: string, amountKopecks: number, at: number): boolean {
      return debitWithin.get({ accountId, amountKopecks, at }) !== undefined;
    },
    refundOf(paymentId: string): RefundRow | undefined {
      return refundOf.get({ paymentId });
    },
    insertRefund(r: RefundRow): void {
      insertRefund.run(r);
    },
    markRefunded(paymentId: string, accountId: string, amountKopecks: number, at: number): void {
      markRefunded.run({ paymentId, accountId, amountKopecks, at });
    },
    /** Deletes the account's reserve for a payment whose refund has not happened; returns it, or undefined when there was none. */
    deletePendingRefund(paymentId: string, accountId: string): RefundRow | undefined {
      return deletePendingRefund.get({ paymentId, accountId });
    },
    insertPayout(r: { id: string; accountId: string; amountKopecks: number; idempotencyKey: string | null; createdAt: number }): PayoutRow {
      return insertPayout.get(r)!;
    },
    payoutByKey(accountId: string, idempotencyKey: string): PayoutRow | undefined {
      return payoutByKey.get({ accountId, idempotencyKey });
    },
    markPaid(id: string, at: number): void {
      markPaid.run({ id, at });
    },
    payout(id: string): PayoutRow | undefined {
      return payoutById.get({ id });
    },
    pendingPayoutIds(): string[] {
      return pendingPayouts.all().map((r) => r.id);
    },
    /** Newest first, only those older than `before` (a payout id) when given. */
    latestPayouts(accountId: string, limit: number, before?: string): PayoutRow[] {
      // Ids are UUIDv7 in lowercase hex: "~" sorts after every one of them.
      return latestPayouts.all({ accountId, limit, before: before ?? "~" });
    },
  };
}
