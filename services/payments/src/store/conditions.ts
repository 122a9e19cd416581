import { and, eq, gte, inArray, isNotNull, lte, ne, sql, type Placeholder } from "drizzle-orm";
import { FINAL_STATUSES, paymentEventId, type FinalStatus, type PaymentStatus } from "@payaccept/contracts";
import { isFinal } from "../domain/state-machine.ts";
import type { BrowseFilter, ExportFilter } from "./payments-store.ts";
import type * as pg from "./schema.pg.ts";
import type * as sqlite from "./schema.ts";

/**
 * The WHERE terms both engines' statements share, built on either schema's columns: each engine
 * keeps only its own statements (prepared ones on SQLite, locks on PostgreSQL) around them. A value
 * may be a placeholder, for SQLite's prepared statements.
 */

type Payments = typeof sqlite.payments | typeof pg.payments;
type Refunds = typeof sqlite.refunds | typeof pg.refunds;
type DailyStats = typeof sqlite.dailyStats | typeof pg.dailyStats;
type DailyRefunds = typeof sqlite.dailyRefunds | typeof pg.dailyRefunds;
type Outbox = typeof sqlite.outbox | typeof pg.outbox;
type StatusCounts = typeof sqlite.statusCounts | typeof pg.statusCounts;
type Value<T> = T | Placeholder;

/** The CSV export's keyset page: the period, the statuses, and everything after the last row sent. */
export const exportConditions = (p: Payments, shopId: string, f: ExportFilter) =>
  and(
    eq(p.shopId, shopId),
    f.fromMs === undefined ? undefined : gte(p.createdAt, f.fromMs),
    f.toMs === undefined ? undefined : lte(p.createdAt, f.toMs),
    f.statuses?.length ? inArray(p.status, f.statuses) : undefined,
    f.after ? sql`(${p.createdAt}, ${p.id}) > (${f.after.createdAt}, ${f.after.id})` : undefined,
  );

/** The dashboard's filter on the daily rollup (its totals): whole Moscow days and the statuses. */
export const rollupConditions = (d: DailyStats, shopId: string, f: Pick<BrowseFilter, "fromDay" | "toDay" | "statuses">) =>
  and(
    eq(d.shopId, shopId),
    f.fromDay ? gte(d.day, f.fromDay) : undefined,
    f.toDay ? lte(d.day, f.toDay) : undefined,
    f.statuses?.length ? inArray(d.status, f.statuses) : undefined,
  );

/** The dashboard's totals from the rollup: per status (grouped by it), the payments and their amount. */
export const statusTotals = <D extends DailyStats>(d: D) => ({
  status: d.status as D["status"],
  count: sql<number>`sum(${d.count})`.mapWith(Number),
  sumKopecks: sql<number>`sum(${d.sumKopecks})`.mapWith(Number),
});

/** A rollup's cells of the shops over Moscow days [fromDay, toDay]. */
export const shopsDays = (d: DailyStats | DailyRefunds, shopIds: string[], fromDay: string, toDay: string) =>
  and(inArray(d.shopId, shopIds), gte(d.day, fromDay), lte(d.day, toDay));

/** The shop's payments numbered first..last. */
export const seqRange = (p: Payments, shopId: Value<string>, first: Value<number>, last: Value<number>) =>
  and(eq(p.shopId, shopId), gte(p.seq, first), lte(p.seq, last));

/** The shop's payments of these seqs (a page read by its seqs). */
export const seqsOf = (p: Payments, shopId: string, seqs: number[]) => and(eq(p.shopId, shopId), inArray(p.seq, seqs));

/** The shop's counters of these statuses. */
export const countersOf = (c: StatusCounts, shopId: string, statuses: PaymentStatus[]) => and(eq(c.shopId, shopId), inArray(c.status, statuses));

/** The shop's payments created at or after `at` (the first of them opens a period's seq window). */
export const createdAtOrAfter = (p: Payments, shopId: Value<string>, at: Value<number>) => and(eq(p.shopId, shopId), gte(p.createdAt, at));

/** The shop's payments created at or before `at` (the last of them closes a period's seq window). */
export const createdAtOrBefore = (p: Payments, shopId: Value<string>, at: Value<number>) => and(eq(p.shopId, shopId), lte(p.createdAt, at));

/** CREATED and PENDING payments whose time is up. */
export const expired = (p: Payments, now: Value<number>) => and(isNotNull(p.expiresAt), lte(p.expiresAt, now));

/** The outbox ids of the payment's final events (one per final status, so at most one of each). */
export const finalEventIds = (o: Outbox, paymentId: string) => inArray(o.eventId, FINAL_STATUSES.map((s) => paymentEventId(paymentId, s)));

/** The outbox also holds refund events; the ids asked for are payment events only. */
export const onlyFinal = (e: { status: string; at: number }): e is { status: FinalStatus; at: number } => isFinal(e.status as PaymentStatus);

/** The refunds that hold part of the payment's amount: every one that has not failed. */
export const holdingAmount = (r: Refunds, paymentId: Value<string>) => and(eq(r.paymentId, paymentId), ne(r.status, "FAILED"));

/** The refund its idempotency key already made for the payment. */
export const byIdempotencyKey = (r: Refunds, paymentId: Value<string>, key: Value<string>) => and(eq(r.paymentId, paymentId), eq(r.idempotencyKey, key));

/** PENDING refunds (a retry time set) whose retry time has come. */
export const refundDue = (r: Refunds, now: Value<number>) => and(isNotNull(r.retryAt), lte(r.retryAt, now));

/**
 * The claim decision, made by the UPDATE itself: the refund is still PENDING and its lease has run
 * out. Of two sweepers, the second finds retry_at moved and claims nothing.
 */
export const claimable = (r: Refunds, id: Value<string>, now: Value<number>) => and(eq(r.id, id), eq(r.status, "PENDING"), lte(r.retryAt, now));

/** The payment's SET when a refund opens: its amount is promised (refunding_kopecks). */
export const promiseRefund = (p: Payments, amountKopecks: number, now: number) => ({ refundingKopecks: sql`${p.refundingKopecks} + ${amountKopecks}`, updatedAt: now });

/** The payment's SET when a refund ends: the promise is released, and what succeeded counted as refunded. */
export const settleRefund = (p: Payments, amountKopecks: number, succeededKopecks: number, now: number) => ({
  refundingKopecks: sql`${p.refundingKopecks} - ${amountKopecks}`,
  refundedKopecks: sql`${p.refundedKopecks} + ${succeededKopecks}`,
  updatedAt: now,
});
