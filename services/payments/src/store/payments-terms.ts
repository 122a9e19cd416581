import { and, asc, desc, eq, gt, gte, inArray, isNotNull, isNull, lt, lte, ne, sql, type Column, type SQL } from "drizzle-orm";
import { FINAL_STATUSES, paymentEventId, type FinalStatus, type PaymentStatus } from "@payaccept/contracts";
import type { Db, Dialect, EitherTables, SetOf, Value, Values } from "@payaccept/platform";
import type { OnEither } from "@payaccept/platform/table";
import { isFinal } from "../domain/state-machine.ts";
import type { BrowseFilter, ExportFilter, PaymentRow } from "./payments-store.ts";
import type * as tables from "./schema.ts";

/**
 * What both engines' statements share, built on either schema's columns: the WHERE terms, SETs,
 * upserts, shapes and orders, and at the end (`paymentsStatements`) the statements themselves.
 * Each engine keeps only how they run (prepared ones and `.get()/.all()/.run()` on SQLite,
 * `await`, locks and batches on PostgreSQL). A value may be a placeholder, for prepared statements.
 */

type Payments = OnEither<typeof tables.payments>;
type Refunds = OnEither<typeof tables.refunds>;
type DailyStats = OnEither<typeof tables.dailyStats>;
type DailyRefunds = OnEither<typeof tables.dailyRefunds>;
type Outbox = OnEither<typeof tables.outbox>;
type StatusCounts = OnEither<typeof tables.statusCounts>;
type SavedMethods = OnEither<typeof tables.savedMethods>;
type IdempotencyKeys = OnEither<typeof tables.idempotencyKeys>;

/** The CSV export's keyset page: the period, the statuses, and everything after the last row sent. */
const exportConditions = (p: Payments, shopId: string, f: ExportFilter) =>
  and(
    eq(p.shopId, shopId),
    f.fromMs === undefined ? undefined : gte(p.createdAt, f.fromMs),
    f.toMs === undefined ? undefined : lte(p.createdAt, f.toMs),
    f.statuses?.length ? inArray(p.status, f.statuses) : undefined,
    f.after ? sql`(${p.createdAt}, ${p.id}) > (${f.after.createdAt}, ${f.after.id})` : undefined,
  );

/** The dashboard's filter on the daily rollup (its totals): whole Moscow days and the statuses. */
const rollupConditions = (d: DailyStats, shopId: string, f: Pick<BrowseFilter, "fromDay" | "toDay" | "statuses">) =>
  and(
    eq(d.shopId, shopId),
    f.fromDay ? gte(d.day, f.fromDay) : undefined,
    f.toDay ? lte(d.day, f.toDay) : undefined,
    f.statuses?.length ? inArray(d.status, f.statuses) : undefined,
  );

/** The dashboard's totals from the rollup: per status (grouped by it), the payments and their amount. */
const statusTotals = <D extends DailyStats>(d: D) => ({
  status: d.status as D["status"],
  count: sql<number>`sum(${d.count})`.mapWith(Number),
  sumKopecks: sql<number>`sum(${d.sumKopecks})`.mapWith(Number),
});

/** A rollup's cells of the shops over Moscow days [fromDay, toDay]. */
const shopsDays = (d: DailyStats | DailyRefunds, shopIds: string[], fromDay: string, toDay: string) =>
  and(inArray(d.shopId, shopIds), gte(d.day, fromDay), lte(d.day, toDay));

/** The shop's payments numbered first..last. */
export const seqRange = (p: Payments, shopId: Value<string>, first: Value<number>, last: Value<number>) =>
  and(eq(p.shopId, shopId), gte(p.seq, first), lte(p.seq, last));

/** The shop's payments of these seqs (a page read by its seqs). */
const seqsOf = (p: Payments, shopId: string, seqs: number[]) => and(eq(p.shopId, shopId), inArray(p.seq, seqs));

/** The shop's counters of these statuses. */
const countersOf = (c: StatusCounts, shopId: string, statuses: PaymentStatus[]) => and(eq(c.shopId, shopId), inArray(c.status, statuses));

/** The shop's payments created at or after `at` (the first of them opens a period's seq window). */
const createdAtOrAfter = (p: Payments, shopId: Value<string>, at: Value<number>) => and(eq(p.shopId, shopId), gte(p.createdAt, at));

/** The shop's payments created at or before `at` (the last of them closes a period's seq window). */
const createdAtOrBefore = (p: Payments, shopId: Value<string>, at: Value<number>) => and(eq(p.shopId, shopId), lte(p.createdAt, at));

/** CREATED and PENDING payments whose time is up. */
export const expired = (p: Payments, now: Value<number>) => and(isNotNull(p.expiresAt), lte(p.expiresAt, now));

/** The outbox ids of the payment's final events (one per final status, so at most one of each). */
const finalEventIds = (o: Outbox, paymentId: string) => inArray(o.eventId, FINAL_STATUSES.map((s) => paymentEventId(paymentId, s)));

/** The outbox also holds refund events; the ids asked for are payment events only. */
export const onlyFinal = (e: { status: string; at: number }): e is { status: FinalStatus; at: number } => isFinal(e.status as PaymentStatus);

/**
 * A payment a reconciliation looks up at its acquirer: live, still waiting on the acquirer's word
 * (PENDING, AUTHORIZED), unchanged since `before`; one shop's when given.
 */
const reconcilable = (p: Payments, before: number, shopId?: string) =>
  and(inArray(p.status, ["PENDING", "AUTHORIZED"]), eq(p.isTest, false), lte(p.updatedAt, before), shopId === undefined ? undefined : eq(p.shopId, shopId));

/** PENDING live charges (a lease set) whose lease has run out. */
const chargeDue = (p: Payments, now: Value<number>) => and(isNotNull(p.chargeRetryAt), lte(p.chargeRetryAt, now));

/** The claim of a charge, decided by the UPDATE itself: still PENDING and its lease run out; of two sweepers the second claims nothing. */
const chargeClaimable = (p: Payments, id: Value<string>, now: Value<number>) => and(eq(p.id, id), eq(p.status, "PENDING"), lte(p.chargeRetryAt, now));

/** The payment, while it is still a hold waiting for its capture. */
const stillAuthorized = (p: Payments, id: Value<string>) => and(eq(p.id, id), eq(p.status, "AUTHORIZED"));

/** A page of the shop's saved methods: one customer's when given, older than the cursor when given. */
export const methodsPage = (m: SavedMethods, shopId: string, f: { customerId?: string; startingAfter?: string }) =>
  and(eq(m.shopId, shopId), f.customerId === undefined ? undefined : eq(m.customerId, f.customerId), f.startingAfter === undefined ? undefined : lt(m.id, f.startingAfter));

/** Newest first: ids are UUIDv7. */
const methodsOrder = (m: SavedMethods) => [desc(m.id)];

/** ACTIVE cards whose expiry month is over. */
const methodExpired = (m: SavedMethods, now: Value<number>) => and(isNotNull(m.expiresAt), lte(m.expiresAt, now));

/** A method's end, decided by the UPDATE itself: only an ACTIVE method ends, once. */
const methodActive = (m: SavedMethods, id: Value<string>) => and(eq(m.id, id), eq(m.status, "ACTIVE"));

/** The refunds that hold part of the payment's amount: every one that has not failed. */
const holdingAmount = (r: Refunds, paymentId: Value<string>) => and(eq(r.paymentId, paymentId), ne(r.status, "FAILED"));

/** The refund its idempotency key already made for the payment. */
const byIdempotencyKey = (r: Refunds, paymentId: Value<string>, key: Value<string>) => and(eq(r.paymentId, paymentId), eq(r.idempotencyKey, key));

/** PENDING refunds (a retry time set) whose retry time has come. */
const refundDue = (r: Refunds, now: Value<number>) => and(isNotNull(r.retryAt), lte(r.retryAt, now));

/** A refund still PENDING (a retry time set) that was opened before `before`. */
const refundPendingSince = (r: Refunds, before: number) => and(isNotNull(r.retryAt), lte(r.createdAt, before));

/**
 * The claim decision, made by the UPDATE itself: the refund is still PENDING and its lease has run
 * out. Of two sweepers, the second finds retry_at moved and claims nothing.
 */
const claimable = (r: Refunds, id: Value<string>, now: Value<number>) => and(eq(r.id, id), eq(r.status, "PENDING"), lte(r.retryAt, now));

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
const exportOrder = (p: Payments) => [asc(p.createdAt), asc(p.id)];

/** The daily rollup summed over the shops: one cell per (day, method, status), in that order, empty cells left out. */
const dailyStatsCells = <D extends DailyStats>(d: D) => ({
  fields: { day: d.day as D["day"], method: d.method as D["method"], status: d.status as D["status"], count: count(sql`sum(${d.count})`), sumKopecks: count(sql`sum(${d.sumKopecks})`) },
  group: [d.day as D["day"], d.method as D["method"], d.status as D["status"]],
  nonEmpty: sql`sum(${d.count}) <> 0`,
});

/** The refunds rollup summed over the shops, one row per day. */
const dailyRefundsCells = <R extends DailyRefunds>(r: R) => ({ day: r.day as R["day"], count: count(sql`sum(${r.count})`), sumKopecks: count(sql`sum(${r.sumKopecks})`) });

/** The sum of the shop's counters that match. */
export const countersTotal = (c: StatusCounts) => ({ n: count(sql`coalesce(sum(${c.count}), 0)`) });

/** How many rows match, counted one by one. */
const rowCount = () => ({ n: count(sql`count(*)`) });

/** How many rows wait, and the creation time of the oldest (pending refunds; the outbox's backlog). */
export const waiting = (createdAt: Column) => ({ count: count(sql`count(*)`), oldest: earliest(createdAt) });

/** What the payment's refunds that have not failed take from the merchant's balance. */
export const takenKopecks = (r: Refunds) => ({ total: count(sql`coalesce(sum(${r.balanceKopecks}), 0)`) });

/** A status counter's upsert adds the delta. */
const countUpsert = <C extends StatusCounts>(c: C) => ({ target: [c.shopId as C["shopId"], c.status as C["status"]], set: { count: sql`${c.count} + excluded.count` } });

/** A daily cell's upsert adds the count and the amount. */
const dailyUpsert = <D extends DailyStats>(d: D) => ({
  target: [d.shopId as D["shopId"], d.day as D["day"], d.method as D["method"], d.status as D["status"]],
  set: { count: sql`${d.count} + excluded.count`, sumKopecks: sql`${d.sumKopecks} + excluded.sum_kopecks` },
});

/** A day's refunds upsert counts one more refund and its amount. */
const refundsDayUpsert = <R extends DailyRefunds>(r: R) => ({
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
const keyUpsert = <K extends IdempotencyKeys>(k: K, cutoff: Value<number>) => ({
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
const expiredKeys = (k: IdempotencyKeys, cutoff: number, limit: number) =>
  sql`(${k.shopId}, ${k.key}) in (select shop_id, key from idempotency_keys where created_at <= ${cutoff} limit ${limit})`;

/**
 * The statements of payments' store, the same on both engines, built on `db` (the pool, a
 * transaction, or SQLite's file) over that engine's tables `t`; the engine runs them.
 */
export function paymentsStatements<E extends Dialect>(db: Db<E>, t: EitherTables<typeof tables.tables>) {
  const { payments: p, refunds: r, statusCounts, dailyStats, dailyRefunds, outbox, savedMethods: m, idempotencyKeys: k } = t;
  return {
    paymentById: (id: Value<string>) => db.select().from(p).where(eq(p.id, id)),
    paymentByOrderId: (shopId: Value<string>, orderId: Value<string>) => db.select().from(p).where(and(eq(p.shopId, shopId), eq(p.orderId, orderId))),
    /** The shop's last payment: the next one is numbered after it (nextOfShop). */
    lastOfShop: (shopId: Value<string>) => db.select({ seq: p.seq, createdAt: p.createdAt, id: p.id }).from(p).where(eq(p.shopId, shopId)).orderBy(desc(p.seq)).limit(1),
    /** The seq of the shop's first payment created at or after `at` (a period's seq window opens there). */
    firstSeqFrom: (shopId: Value<string>, at: Value<number>) =>
      db.select({ seq: p.seq }).from(p).where(createdAtOrAfter(p, shopId, at)).orderBy(asc(p.createdAt), asc(p.id)).limit(1),
    /** The seq of the shop's last payment created at or before `at` (a period's seq window closes there). */
    lastSeqTo: (shopId: Value<string>, at: Value<number>) =>
      db.select({ seq: p.seq }).from(p).where(createdAtOrBefore(p, shopId, at)).orderBy(desc(p.createdAt), desc(p.id)).limit(1),
    /** The shop's payments numbered first..last, in seq order. */
    seqRangeRows: (shopId: Value<string>, first: Value<number>, last: Value<number>) => db.select().from(p).where(seqRange(p, shopId, first, last)).orderBy(asc(p.seq)),
    /** The shop's payments of these seqs, in no order (inSeqOrder puts them in the page's). */
    rowsOfSeqs: (shopId: string, seqs: number[]) => db.select().from(p).where(seqsOf(p, shopId, seqs)),
    /** How many of the shop's payments numbered first..last have these statuses. */
    countInStatuses: (shopId: string, statuses: PaymentStatus[], first: number, last: number) =>
      db.select(rowCount()).from(p).where(and(seqRange(p, shopId, first, last), inArray(p.status, statuses))),
    /** The sum of the shop's counters of these statuses. */
    countersTotal: (shopId: string, statuses: PaymentStatus[]) => db.select(countersTotal(statusCounts)).from(statusCounts).where(countersOf(statusCounts, shopId, statuses)),
    /**
     * A page of the shop's seqs first..last in amount order (then seq), of the statuses when given.
     * `seq` and `status` are the expressions compared: SQLite may be handed `+seq`/`+status` to steer its planner.
     */
    amountPage: (shopId: string, window: { first: number; last: number }, f: { statuses?: PaymentStatus[]; descending: boolean; offset: number; limit: number }, seq: SQL = sql`${p.seq}`, status: SQL = sql`${p.status}`) => {
      const dir = f.descending ? desc : asc;
      return db
        .select({ seq: p.seq })
        .from(p)
        .where(and(eq(p.shopId, shopId), gte(seq, window.first), lte(seq, window.last), f.statuses?.length ? inArray(status, f.statuses) : undefined))
        .orderBy(dir(p.amountKopecks), dir(p.seq))
        .limit(f.limit)
        .offset(f.offset);
    },
    /** Count and amount of the dashboard's filtered set, from the daily rollup: the filter is whole Moscow days. */
    rollupTotals: (shopId: string, f: Pick<BrowseFilter, "fromDay" | "toDay" | "statuses">) =>
      db
        .select(statusTotals(dailyStats))
        .from(dailyStats)
        .where(rollupConditions(dailyStats, shopId, f))
        .groupBy(dailyStats.status)
        .having(sql`sum(${dailyStats.count}) <> 0`)
        .orderBy(dailyStats.status),
    dailyRefunds: (shopIds: string[], fromDay: string, toDay: string) =>
      db.select(dailyRefundsCells(dailyRefunds)).from(dailyRefunds).where(shopsDays(dailyRefunds, shopIds, fromDay, toDay)).groupBy(dailyRefunds.day).orderBy(dailyRefunds.day),
    dailyStats: (shopIds: string[], fromDay: string, toDay: string) => {
      const cells = dailyStatsCells(dailyStats);
      return db
        .select(cells.fields)
        .from(dailyStats)
        .where(shopsDays(dailyStats, shopIds, fromDay, toDay))
        .groupBy(...cells.group)
        .having(cells.nonEmpty)
        .orderBy(...cells.group);
    },
    finalEvents: (id: string) => db.select({ status: outbox.status, at: outbox.createdAt }).from(outbox).where(finalEventIds(outbox, id)).orderBy(asc(outbox.seq)),
    exportPage: (shopId: string, f: ExportFilter) => db.select().from(p).where(exportConditions(p, shopId, f)).orderBy(...exportOrder(p)).limit(f.limit),
    dueForExpiry: (now: Value<number>, limit: Value<number>) => db.select({ id: p.id }).from(p).where(expired(p, now)).orderBy(asc(p.expiresAt)).limit(limit),
    dueCharges: (now: Value<number>, limit: Value<number>) => db.select({ id: p.id }).from(p).where(chargeDue(p, now)).orderBy(asc(p.chargeRetryAt)).limit(limit),
    /** The reconciliation's candidates (docs/connectors.md, "Reconciliation"), oldest change first. */
    reconcileDue: (before: number, limit: number, shopId?: string) => db.select().from(p).where(reconcilable(p, before, shopId)).orderBy(asc(p.updatedAt)).limit(limit),
    /** One conditional UPDATE: of two sweepers, on any host, the second finds the lease moved and claims nothing. */
    claimCharge: (id: Value<string>, now: Value<number>, until: Value<number>) => db.update(p).set({ chargeRetryAt: until }).where(chargeClaimable(p, id, now)).returning(),
    keepCaptureReceipt: (id: string, receipt: NonNullable<PaymentRow["captureReceipt"]>) => db.update(p).set({ captureReceipt: receipt }).where(stillAuthorized(p, id)),
    /** The UNIQUE index (shop_id, order_id) decides a taken order id: its row is skipped, none comes back for it. */
    insertPayments: (rows: Values<Payments> | Values<Payments>[]) => db.insert(p).values(rows).onConflictDoNothing({ target: [p.shopId, p.orderId] }).returning(),
    /** The same for one payment whose row the caller knows (insertedRow): nothing comes back; a taken order id changes no row. */
    insertPayment: (row: Values<Payments>) => db.insert(p).values(row).onConflictDoNothing({ target: [p.shopId, p.orderId] }),
    /** The status counters gain their deltas (`count` holds the delta). */
    bumpCounts: (cells: Values<StatusCounts> | Values<StatusCounts>[]) => db.insert(statusCounts).values(cells).onConflictDoUpdate(countUpsert(statusCounts)),
    /** The daily rollup's cells gain their deltas (`count` and `sumKopecks` hold them). */
    bumpDaily: (cells: Values<DailyStats> | Values<DailyStats>[]) => db.insert(dailyStats).values(cells).onConflictDoUpdate(dailyUpsert(dailyStats)),
    /** A SUCCEEDED refund counted on its Moscow day. */
    countRefund: (shopId: Value<string>, day: Value<string>, sumKopecks: Value<number>) =>
      db.insert(dailyRefunds).values({ shopId, day, count: 1, sumKopecks }).onConflictDoUpdate(refundsDayUpsert(dailyRefunds)),
    insertEvents: (events: Values<Outbox> | Values<Outbox>[]) => db.insert(outbox).values(events),

    refundById: (id: Value<string>) => db.select().from(r).where(eq(r.id, id)),
    refundByKey: (paymentId: Value<string>, key: Value<string>) => db.select().from(r).where(byIdempotencyKey(r, paymentId, key)),
    refundsOf: (paymentId: Value<string>) => db.select().from(r).where(eq(r.paymentId, paymentId)).orderBy(asc(r.id)),
    /** What the payment's refunds that have not failed take from the merchant's balance. */
    takenKopecks: (paymentId: Value<string>) => db.select(takenKopecks(r)).from(r).where(holdingAmount(r, paymentId)),
    insertRefund: (row: Values<Refunds>) => db.insert(r).values(row).returning(),
    /** The payment's SET when a refund opens: its amount is promised. */
    promiseRefund: (paymentId: string, amountKopecks: number, now: number) => db.update(p).set(promiseRefund(p, amountKopecks, now)).where(eq(p.id, paymentId)),
    /** The refund's end: its outcome, and no more retries. */
    endRefund: (id: string, set: SetOf<Refunds>) => db.update(r).set(set).where(eq(r.id, id)).returning(),
    /** The payment's SET when a refund ends: the promise released, what succeeded counted as refunded. */
    settleRefund: (paymentId: string, amountKopecks: number, succeededKopecks: number, now: number) =>
      db.update(p).set(settleRefund(p, amountKopecks, succeededKopecks, now)).where(eq(p.id, paymentId)).returning(),
    dueRefunds: (now: Value<number>, limit: Value<number>) => db.select({ id: r.id }).from(r).where(refundDue(r, now)).orderBy(asc(r.retryAt)).limit(limit),
    /** Refunds PENDING since before `before`, oldest first (the reconciliation reports them). */
    refundsPendingSince: (before: number, limit: number) => db.select().from(r).where(refundPendingSince(r, before)).orderBy(asc(r.createdAt)).limit(limit),
    /** One conditional UPDATE: of two sweepers the second finds retry_at moved and claims nothing. */
    claimRefund: (id: Value<string>, now: Value<number>, until: Value<number>) => db.update(r).set({ retryAt: until }).where(claimable(r, id, now)).returning(),
    pendingRefunds: () => db.select(waiting(r.createdAt)).from(r).where(isNotNull(r.retryAt)),

    methodById: (id: Value<string>) => db.select().from(m).where(eq(m.id, id)),
    methodByProviderId: (providerMethodId: Value<string>) => db.select().from(m).where(eq(m.providerMethodId, providerMethodId)),
    methodsPage: (shopId: string, f: { customerId?: string; startingAfter?: string; limit: number }) => db.select().from(m).where(methodsPage(m, shopId, f)).orderBy(...methodsOrder(m)).limit(f.limit),
    /** A method saved by a payment's move; the move of a copy of the same call saves nothing again. */
    insertMethods: (rows: Values<SavedMethods> | Values<SavedMethods>[]) => db.insert(m).values(rows).onConflictDoNothing(),
    /** A method's end, decided by the UPDATE itself: only an ACTIVE method ends, once. */
    endMethod: (id: string, set: SetOf<SavedMethods>) => db.update(m).set(set).where(methodActive(m, id)).returning(),
    dueMethods: (now: Value<number>, limit: Value<number>) => db.select({ id: m.id }).from(m).where(methodExpired(m, now)).orderBy(asc(m.expiresAt)).limit(limit),

    /** Up to `limit` events the relay has not published, oldest first. */
    unpublished: (limit: Value<number>) => db.select().from(outbox).where(isNull(outbox.publishedAt)).orderBy(asc(outbox.seq)).limit(limit),
    backlog: () => db.select(waiting(outbox.createdAt)).from(outbox).where(isNull(outbox.publishedAt)),
    markPublished: (seqs: number[], at: number | SQL) => db.update(outbox).set({ publishedAt: at }).where(inArray(outbox.seq, seqs)),

    liveKey: (shopId: Value<string>, key: Value<string>, cutoff: Value<number>) => db.select().from(k).where(liveKey(k, shopId, key, cutoff)),
    /** Writes the keys' rows unless a live one is there: a key that comes back was written. */
    putKeys: (rows: Values<IdempotencyKeys> | Values<IdempotencyKeys>[], cutoff: Value<number>) => db.insert(k).values(rows).onConflictDoUpdate(keyUpsert(k, cutoff)).returning({ key: k.key }),
    sweepKeys: (cutoff: number, limit: number) => db.delete(k).where(expiredKeys(k, cutoff, limit)).returning({ key: k.key }),
  };
}
