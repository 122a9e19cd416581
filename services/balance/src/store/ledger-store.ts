import { join } from "node:path";
import { and, desc, eq, gt, gte, isNull, lt, lte, sql } from "drizzle-orm";
import { openStore } from "@payaccept/platform";
import * as schema from "./schema.ts";
import { accounts, appliedEvents, appliedRefundEvents, frozenBuckets, payouts, refundHolds } from "./schema.ts";

const MIGRATIONS = join(import.meta.dir, "../../drizzle");
const p = sql.placeholder;

export type AppliedEvent = typeof appliedEvents.$inferInsert;
export type RefundHoldRow = typeof refundHolds.$inferSelect;
export type AppliedRefundEvent = typeof appliedRefundEvents.$inferInsert;
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

  const receiptDay = db
    .select({ moscowDay: appliedEvents.moscowDay })
    .from(appliedEvents)
    .where(and(eq(appliedEvents.paymentId, p("paymentId")), eq(appliedEvents.status, "SUCCESS")))
    .prepare();
  const frozenOfDay = db
    .select({ amountKopecks: frozenBuckets.amountKopecks })
    .from(frozenBuckets)
    .where(and(eq(frozenBuckets.accountId, p("accountId")), eq(frozenBuckets.moscowDay, p("moscowDay"))))
    .prepare();
  const takeFrozen = db
    .update(frozenBuckets)
    .set({ amountKopecks: sql`${frozenBuckets.amountKopecks} - ${p("amountKopecks")}` })
    .where(and(eq(frozenBuckets.accountId, p("accountId")), eq(frozenBuckets.moscowDay, p("moscowDay")), gte(frozenBuckets.amountKopecks, p("amountKopecks"))))
    .returning({ amountKopecks: frozenBuckets.amountKopecks })
    .prepare();
  const holdOf = db.select().from(refundHolds).where(eq(refundHolds.refundId, p("refundId"))).prepare();
  const putHold = db.insert(refundHolds).values({
    refundId: p("refundId"),
    paymentId: p("paymentId"),
    accountId: p("accountId"),
    state: p("state"),
    frozenDay: p("frozenDay"),
    frozenKopecks: p("frozenKopecks"),
    availableKopecks: p("availableKopecks"),
    createdAt: p("createdAt"),
    settledAt: p("settledAt"),
  }).onConflictDoUpdate({
    target: refundHolds.refundId,
    set: {
      state: sql`excluded.state`,
      frozenDay: sql`excluded.frozen_day`,
      frozenKopecks: sql`excluded.frozen_kopecks`,
      availableKopecks: sql`excluded.available_kopecks`,
      settledAt: sql`excluded.settled_at`,
    },
  }).prepare();
  const insertRefundEvent = db.insert(appliedRefundEvents).values({
    refundId: p("refundId"),
    status: p("status"),
    paymentId: p("paymentId"),
    accountId: p("accountId"),
    balanceKopecks: p("balanceKopecks"),
    occurredAt: p("occurredAt"),
    appliedAt: p("appliedAt"),
  }).onConflictDoNothing().returning({ refundId: appliedRefundEvents.refundId }).prepare();

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
    /** The Moscow day whose frozen bucket the payment's receipt went into; undefined before its SUCCESS is applied. */
    receiptDay(paymentId: string): string | undefined {
      return receiptDay.get({ paymentId })?.moscowDay ?? undefined;
    },
    frozenOfDay(accountId: string, moscowDay: string): number {
      return frozenOfDay.get({ accountId, moscowDay })?.amountKopecks ?? 0;
    },
    /** False (and nothing taken) when the day's bucket holds less. */
    takeFrozen(accountId: string, moscowDay: string, amountKopecks: number): boolean {
      return takeFrozen.get({ accountId, moscowDay, amountKopecks }) !== undefined;
    },
    refundHold(refundId: string): RefundHoldRow | undefined {
      return holdOf.get({ refundId });
    },
    /** Inserts the refund's hold, or replaces its state and figures. */
    putRefundHold(h: RefundHoldRow): void {
      putHold.run(h);
    },
    /** False when the refund's end was applied before. */
    recordRefundEvent(e: Required<AppliedRefundEvent>): boolean {
      return insertRefundEvent.get(e) !== undefined;
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
