import { and, asc, desc, eq, gt, gte, inArray, isNotNull, lt, lte, ne, sql, type Column, type Placeholder, type SQL } from "drizzle-orm";
import { FINAL_STATUSES, paymentEventId, type FinalStatus, type PaymentStatus } from "@payaccept/contracts";
import { isFinal } from "../domain/state-machine.ts";
import type { BrowseFilter, ExportFilter } from "./payments-store.ts";
import type { OnEither } from "@payaccept/platform/table";
import type * as tables from "./schema.ts";

/**
 * The WHERE terms both engines' statements share, built on either schema's columns: each engine
 * keeps only its own statements (prepared ones on SQLite, locks on PostgreSQL) around them. A value
 * may be a placeholder, for SQLite's prepared statements.
 */

type Payments = OnEither<typeof tables.payments>;
type Refunds = OnEither<typeof tables.refunds>;
type DailyStats = OnEither<typeof tables.dailyStats>;
type DailyRefunds = OnEither<typeof tables.dailyRefunds>;
type Outbox = OnEither<typeof tables.outbox>;
type StatusCounts = OnEither<typeof tables.statusCounts>;
type SavedMethods = OnEither<typeof tables.savedMethods>;
type IdempotencyKeys = OnEither<typeof tables.idempotencyKeys>;
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

/**
 * A payment a reconciliation looks up at its acquirer: live, still waiting on the acquirer's word
 * (PENDING, AUTHORIZED), unchanged since `before`; one shop's when given.
 */
export const reconcilable = (p: Payments, before: number, shopId?: string) =>
  and(inArray(p.status, ["PENDING", "AUTHORIZED"]), eq(p.isTest, false), lte(p.updatedAt, before), shopId === undefined ? undefined : eq(p.shopId, shopId));

/** A refund still PENDING that was opened before `before`. */
export const refundPendingSince = (r: Refunds, before: number) => and(isNotNull(r.retryAt), lte(r.createdAt, before));

/** PENDING live charges (a lease set) whose lease has run out. */
export const chargeDue = (p: Payments, now: Value<number>) => and(isNotNull(p.chargeRetryAt), lte(p.chargeRetryAt, now));

/** The claim of a charge, decided by the UPDATE itself: still PENDING and its lease run out; of two sweepers the second claims nothing. */
export const chargeClaimable = (p: Payments, id: Value<string>, now: Value<number>) => and(eq(p.id, id), eq(p.status, "PENDING"), lte(p.chargeRetryAt, now));

/** The payment, while it is still a hold waiting for its capture. */
export const stillAuthorized = (p: Payments, id: Value<string>) => and(eq(p.id, id), eq(p.status, "AUTHORIZED"));

/** A page of the shop's saved methods: one customer's when given, older than the cursor when given. */
export const methodsPage = (m: SavedMethods, shopId: string, f: { customerId?: string; startingAfter?: string }) =>
  and(eq(m.shopId, shopId), f.customerId === undefined ? undefined : eq(m.customerId, f.customerId), f.startingAfter === undefined ? undefined : lt(m.id, f.startingAfter));

/** Newest first: ids are UUIDv7. */
export const methodsOrder = (m: SavedMethods) => [desc(m.id)];

/** ACTIVE cards whose expiry month is over. */
export const methodExpired = (m: SavedMethods, now: Value<number>) => and(isNotNull(m.expiresAt), lte(m.expiresAt, now));

/** A method's end, decided by the UPDATE itself: only an ACTIVE method ends, once. */
export const methodActive = (m: SavedMethods, id: Value<string>) => and(eq(m.id, id), eq(m.status, "ACTIVE"));

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

/** A number the database sums or counts: SQLite answers a number, PostgreSQL a bigint/numeric as text. */
const count = (expr: SQL) => expr.mapWith(Number);
/** The earliest of a column, null over no rows. */
const earliest = (column: Column) => sql`min(${column})`.mapWith((v: unknown) => (v == null ? null : Number(v))) as SQL<number | null>;

// A shape, order or upsert is generic over the table it gets, so that it keeps that engine's column types.

/** The CSV export's order: (createdAt, id), the keyset its pages continue from. */
export const exportOrder = (p: Payments) => [asc(p.createdAt), asc(p.id)];

/** The daily rollup summed over the shops: one cell per (day, method, status), in that order, empty cells left out. */
export const dailyStatsCells = <D extends DailyStats>(d: D) => ({
  fields: { day: d.day as D["day"], method: d.method as D["method"], status: d.status as D["status"], count: count(sql`sum(${d.count})`), sumKopecks: count(sql`sum(${d.sumKopecks})`) },
  group: [d.day as D["day"], d.method as D["method"], d.status as D["status"]],
  nonEmpty: sql`sum(${d.count}) <> 0`,
});

/** The refunds rollup summed over the shops, one row per day. */
export const dailyRefundsCells = <R extends DailyRefunds>(r: R) => ({ day: r.day as R["day"], count: count(sql`sum(${r.count})`), sumKopecks: count(sql`sum(${r.sumKopecks})`) });

/** The sum of the shop's counters that match. */
export const countersTotal = (c: StatusCounts) => ({ n: count(sql`coalesce(sum(${c.count}), 0)`) });

/** How many rows match, counted one by one. */
export const rowCount = () => ({ n: count(sql`count(*)`) });

/** How many rows wait, and the creation time of the oldest (pending refunds; the outbox's backlog). */
export const waiting = (createdAt: Column) => ({ count: count(sql`count(*)`), oldest: earliest(createdAt) });

/** What the payment's refunds that have not failed take from the merchant's balance. */
export const takenKopecks = (r: Refunds) => ({ total: count(sql`coalesce(sum(${r.balanceKopecks}), 0)`) });

/** A status counter's upsert adds the delta. */
export const countUpsert = <C extends StatusCounts>(c: C) => ({ target: [c.shopId as C["shopId"], c.status as C["status"]], set: { count: sql`${c.count} + excluded.count` } });

/** A daily cell's upsert adds the count and the amount. */
export const dailyUpsert = <D extends DailyStats>(d: D) => ({
  target: [d.shopId as D["shopId"], d.day as D["day"], d.method as D["method"], d.status as D["status"]],
  set: { count: sql`${d.count} + excluded.count`, sumKopecks: sql`${d.sumKopecks} + excluded.sum_kopecks` },
});

/** A day's refunds upsert counts one more refund and its amount. */
export const refundsDayUpsert = <R extends DailyRefunds>(r: R) => ({
  target: [r.shopId as R["shopId"], r.day as R["day"]],
  set: { count: sql`${r.count} + 1`, sumKopecks: sql`${r.sumKopecks} + excluded.sum_kopecks` },
});

/** A shop's Idempotency-Key while it lives: written after `cutoff` (now − IDEMPOTENCY_TTL_MS). */
export const liveKey = (k: IdempotencyKeys, shopId: Value<string>, key: Value<string>, cutoff: Value<number>) =>
  and(eq(k.shopId, shopId), eq(k.key, key), gt(k.createdAt, cutoff));

/**
 * A key's row is written unless a live one is there: an expired row (written at or before
 * `cutoff`) is replaced, a live one left as it is (no row comes back).
 */
export const keyUpsert = <K extends IdempotencyKeys>(k: K, cutoff: Value<number>) => ({
  target: [k.shopId as K["shopId"], k.key as K["key"]],
  set: {
    fingerprint: sql`excluded.fingerprint`,
    status: sql`excluded.status`,
    body: sql`excluded.body`,
    callId: sql`excluded.call_id`,
    createdAt: sql`excluded.created_at`,
  },
  setWhere: lte(k.createdAt, cutoff),
});

/** Up to `limit` keys written at or before `cutoff`: the WHERE of the DELETE that sweeps them. */
export const expiredKeys = (k: IdempotencyKeys, cutoff: number, limit: number) =>
  sql`(${k.shopId}, ${k.key}) in (select shop_id, key from idempotency_keys where created_at <= ${cutoff} limit ${limit})`;
