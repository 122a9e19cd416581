import type { PayoutStatus } from "@payaccept/contracts";
import { and, asc, desc, eq, gt, inArray, isNull, lt, lte, ne, or, sql } from "drizzle-orm";
import { allFromExcluded, fromExcluded, type Db, type Dialect, type EitherTables, type Run, type SetOf } from "@payaccept/platform";
import type { OnEither } from "@payaccept/platform/table";
import type { PayoutChange, PayoutOps } from "./payout-store.ts";
import type * as tables from "./schema.ts";

/**
 * The payouts' statements, written once for both engines (docs/conventions.md, "One repository,
 * two engines"): built per call, payouts being far rarer than the events the ledger prepares its
 * statements for.
 */

type Payouts = OnEither<typeof tables.payouts>;
type Orders = OnEither<typeof tables.paymentOrders>;
type Schedules = OnEither<typeof tables.payoutSchedules>;

/** A status change's check, made by the UPDATE itself: the payout is still in one of the statuses it may leave. */
const payoutIn = (p: Payouts, id: string, from: readonly PayoutStatus[]) => and(eq(p.id, id), inArray(p.status, [...from]));

/** Each status's time column. */
const TIME_OF = { PENDING: "createdAt", SENT: "sentAt", PAID: "paidAt", FAILED: "failedAt", RETURNED: "returnedAt" } as const;

/** What a change to `to` sets: the status, its time, and the bank's words when it gave some. */
const transitionSet = (to: PayoutStatus, change: PayoutChange): SetOf<Payouts> => ({
  status: to,
  [TIME_OF[to]]: change.at,
  ...(change.failureReason !== undefined ? { failureReason: change.failureReason } : {}),
});

/** SENT on a rail, past the order `afterSeq`. */
const sentOn = (p: Payouts, o: Orders, rail: string, afterSeq: number) => and(eq(p.status, "SENT"), eq(o.rail, rail), gt(o.seq, afterSeq));

/** A schedule whose next run is still `at`: moving it on checks that in the same statement. */
const scheduleAt = (s: Schedules, accountId: string, at: number) => and(eq(s.accountId, accountId), eq(s.nextRunAt, at));

/**
 * PayoutOps on either engine, on `db` (the store, or the account's open transaction, which holds
 * the account's row: docs/balance.md, "Locks"), run by the engine's `run`.
 */
export function payoutOps<E extends Dialect>(db: Db<E>, run: Run<E>, t: EitherTables<typeof tables.tables>): PayoutOps {
  const { payouts: p, paymentOrders: o, payoutBatches: b, bankStatements: st, payoutEvents: ev, payoutSchedules: s, bankTokens: bt } = t;
  const withOrder = { payout: p, order: o };
  const newSeed = fromExcluded(bt, ["refreshToken", "seedSha256", "updatedAt"]);
  /** Every payout, with its order when it has one. */
  const joined = () => db.select(withOrder).from(p).leftJoin(o, eq(o.payoutId, p.id));
  /** Payouts that have an order. */
  const ordered = () => db.select(withOrder).from(o).innerJoin(p, eq(o.payoutId, p.id));
  return {
    insertPayout: async (r) => (await run.one(db.insert(p).values({ ...r, status: "PENDING" }).returning()))!,
    payoutByKey: (accountId, idempotencyKey) => run.one(db.select().from(p).where(and(eq(p.accountId, accountId), eq(p.idempotencyKey, idempotencyKey)))),
    payout: (id) => run.one(joined().where(eq(p.id, id))),
    openPayouts: async () => {
      // Read at a scrape: a few open payouts at most, found by the status index.
      const open = (status: "PENDING" | "SENT") =>
        run.one(db.select({ count: sql`count(*)`.mapWith(Number), since: sql`min(${p[TIME_OF[status]]})`.mapWith((v) => (v === null ? null : Number(v))) }).from(p).where(eq(p.status, status)));
      const [pending, sent] = await Promise.all([open("PENDING"), open("SENT")]);
      return { PENDING: pending!, SENT: sent! };
    },
    latestPayouts: (accountId, limit, before) =>
      run.all(
        joined()
          .where(before === undefined ? eq(p.accountId, accountId) : and(eq(p.accountId, accountId), lt(p.id, before)))
          .orderBy(desc(p.id))
          .limit(limit),
      ),
    transitionPayout: (id, from, to, change) => run.one(db.update(p).set(transitionSet(to, change)).where(payoutIn(p, id, from)).returning()),
    payoutsInStatus: (status, limit) => run.all(joined().where(eq(p.status, status)).orderBy(asc(p.id)).limit(limit)),
    pendingPayouts: (limit, accountIds) =>
      run.all(
        db
          .select()
          .from(p)
          .where(and(eq(p.status, "PENDING"), accountIds ? inArray(p.accountId, [...accountIds]) : undefined))
          .orderBy(asc(p.id))
          .limit(limit),
      ),
    insertPaymentOrder: async (row) => (await run.one(db.insert(o).values(row).returning()))!,
    payoutsByReference: async (references) => (references.length === 0 ? [] : run.all(ordered().where(inArray(o.reference, [...references])))),
    sentOnRail: (rail, limit, afterSeq = 0) => run.all(ordered().where(sentOn(p, o, rail, afterSeq)).orderBy(asc(o.seq)).limit(limit)),
    markSubmitted: (payoutId, at) => run.done(db.update(o).set({ submittedAt: at }).where(and(eq(o.payoutId, payoutId), isNull(o.submittedAt)))),
    markStatement: (payoutId, line, sha256) => run.done(db.update(o).set(line === "paid" ? { paidStatement: sha256 } : { returnedStatement: sha256 }).where(eq(o.payoutId, payoutId))),
    insertBatch: (row) => run.done(db.insert(b).values(row)),
    batch: (id) => run.one(db.select().from(b).where(eq(b.id, id))),
    latestBatches: (limit) => run.all(db.select().from(b).orderBy(desc(b.id)).limit(limit)),
    insertStatement: async (row) => (await run.all(db.insert(st).values(row).onConflictDoNothing().returning({ sha256: st.sha256 }))).length > 0,
    statement: (sha256) => run.one(db.select().from(st).where(eq(st.sha256, sha256))),
    addPayoutEvent: async (e) => (await run.all(db.insert(ev).values(e).onConflictDoNothing().returning({ seq: ev.seq }))).length > 0,
    unpublishedPayoutEvents: (limit) => run.all(db.select().from(ev).where(isNull(ev.publishedAt)).orderBy(asc(ev.seq)).limit(limit)),
    markPayoutEventsPublished: async (seqs, at) => (seqs.length === 0 ? undefined : run.done(db.update(ev).set({ publishedAt: at }).where(inArray(ev.seq, [...seqs])))),
    schedule: (accountId) => run.one(db.select().from(s).where(eq(s.accountId, accountId))),
    putSchedule: (row) => run.done(db.insert(s).values(row).onConflictDoUpdate({ target: s.accountId, set: allFromExcluded(s, "accountId") })),
    deleteSchedule: (accountId) => run.done(db.delete(s).where(eq(s.accountId, accountId))),
    dueSchedules: (now, limit) => run.all(db.select().from(s).where(lte(s.nextRunAt, now)).orderBy(asc(s.nextRunAt)).limit(limit)),
    // The check and the move are one statement: of two replicas running one schedule, one moves it.
    advanceSchedule: async (accountId, from, to) => (await run.all(db.update(s).set({ nextRunAt: to }).where(scheduleAt(s, accountId, from)).returning({ a: s.accountId }))).length > 0,
    bankTokens: (rail) => run.one(db.select().from(bt).where(eq(bt.rail, rail))),
    seedBankTokens: (rail, refreshToken, seedSha256, at) =>
      run.done(
        db
          .insert(bt)
          .values({ rail, refreshToken, seedSha256, updatedAt: at })
          // A new seed replaces the refresh token and where it came from; the access token is forgotten (the lease stays).
          .onConflictDoUpdate({ target: bt.rail, set: { ...newSeed, accessToken: null, accessExpiresAt: null }, setWhere: ne(bt.seedSha256, newSeed.seedSha256) }),
      ),
    // The check and the take are one statement: of two replicas whose tick came at once, one works the rail.
    leaseRail: async (rail, now, until) =>
      (await run.all(db.update(bt).set({ leaseUntil: until }).where(and(eq(bt.rail, rail), or(isNull(bt.leaseUntil), lt(bt.leaseUntil, now)))).returning({ rail: bt.rail }))).length > 0,
    releaseRail: (rail, until) => run.done(db.update(bt).set({ leaseUntil: null }).where(and(eq(bt.rail, rail), eq(bt.leaseUntil, until)))),
    saveBankTokens: async (rail, from, pair, at) =>
      (await run.all(db.update(bt).set({ ...pair, updatedAt: at }).where(and(eq(bt.rail, rail), eq(bt.refreshToken, from))).returning({ rail: bt.rail }))).length > 0,
    dropAccessToken: (rail, accessToken) => run.done(db.update(bt).set({ accessToken: null, accessExpiresAt: null }).where(and(eq(bt.rail, rail), eq(bt.accessToken, accessToken)))),
  };
}
