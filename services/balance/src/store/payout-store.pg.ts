import { and, asc, desc, eq, inArray, isNull, lt, lte } from "drizzle-orm";
import type { BunSQLDatabase } from "drizzle-orm/bun-sql";
import type { PayoutOps } from "./payout-store.ts";
import { orderOfPayout, payoutIn, payoutOfKey, REPLACE_SCHEDULE, scheduleAt, sentOn, statementColumn, transitionSet, withOrder } from "./payout-terms.ts";
import { bankStatements, paymentOrders, payoutBatches, payoutEvents, payouts, payoutSchedules, type schema } from "./schema.pg.ts";

/** The pool's database or a transaction's: the statements are the same. */
type Runner = Pick<BunSQLDatabase<typeof schema>, "select" | "insert" | "update" | "delete">;

const first = async <R>(rows: Promise<R[]>) => (await rows)[0];

/**
 * The payouts' statements on PostgreSQL, on the runner given (the pool, or the account's open
 * transaction, which holds the account's row: docs/balance.md, "Locks").
 */
export function pgPayoutOps(db: Runner): PayoutOps {
  const joined = () => db.select(withOrder(payouts, paymentOrders)).from(payouts).leftJoin(paymentOrders, orderOfPayout(payouts, paymentOrders));
  const ordered = () => db.select(withOrder(payouts, paymentOrders)).from(paymentOrders).innerJoin(payouts, orderOfPayout(payouts, paymentOrders));
  return {
    insertPayout: async (r) => (await first(db.insert(payouts).values({ ...r, status: "PENDING" }).returning()))!,
    payoutByKey: (accountId, idempotencyKey) => first(db.select().from(payouts).where(payoutOfKey(payouts, accountId, idempotencyKey))),
    payout: (id) => first(joined().where(eq(payouts.id, id))),
    // No "~" sentinel here: under a non-C collation punctuation does not sort after hex digits.
    latestPayouts: (accountId, limit, before) =>
      joined()
        .where(before === undefined ? eq(payouts.accountId, accountId) : and(eq(payouts.accountId, accountId), lt(payouts.id, before)))
        .orderBy(desc(payouts.id))
        .limit(limit),
    transitionPayout: (id, from, to, change) => first(db.update(payouts).set(transitionSet(to, change)).where(payoutIn(payouts, id, from)).returning()),
    payoutsInStatus: (status, limit) => joined().where(eq(payouts.status, status)).orderBy(asc(payouts.id)).limit(limit),
    pendingPayouts: (limit, accountIds) =>
      db
        .select()
        .from(payouts)
        .where(and(eq(payouts.status, "PENDING"), accountIds ? inArray(payouts.accountId, [...accountIds]) : undefined))
        .orderBy(asc(payouts.id))
        .limit(limit),
    insertPaymentOrder: async (o) => (await first(db.insert(paymentOrders).values(o).returning()))!,
    payoutsByReference: async (references) => (references.length === 0 ? [] : ordered().where(inArray(paymentOrders.reference, [...references]))),
    sentOnRail: (rail, limit, unsubmitted) => ordered().where(sentOn(payouts, paymentOrders, rail, unsubmitted)).orderBy(asc(paymentOrders.seq)).limit(limit),
    markSubmitted: async (payoutId, at) => void (await db.update(paymentOrders).set({ submittedAt: at }).where(and(eq(paymentOrders.payoutId, payoutId), isNull(paymentOrders.submittedAt)))),
    markStatement: async (payoutId, line, sha256) => void (await db.update(paymentOrders).set({ [statementColumn(line)]: sha256 }).where(eq(paymentOrders.payoutId, payoutId))),
    insertBatch: async (row) => void (await db.insert(payoutBatches).values(row)),
    batch: (id) => first(db.select().from(payoutBatches).where(eq(payoutBatches.id, id))),
    latestBatches: (limit) => db.select().from(payoutBatches).orderBy(desc(payoutBatches.id)).limit(limit),
    insertStatement: async (row) => (await db.insert(bankStatements).values(row).onConflictDoNothing().returning({ sha256: bankStatements.sha256 })).length > 0,
    statement: (sha256) => first(db.select().from(bankStatements).where(eq(bankStatements.sha256, sha256))),
    addPayoutEvent: async (e) => (await db.insert(payoutEvents).values(e).onConflictDoNothing().returning({ seq: payoutEvents.seq })).length > 0,
    unpublishedPayoutEvents: (limit) => db.select().from(payoutEvents).where(isNull(payoutEvents.publishedAt)).orderBy(asc(payoutEvents.seq)).limit(limit),
    markPayoutEventsPublished: async (seqs, at) => {
      if (seqs.length > 0) await db.update(payoutEvents).set({ publishedAt: at }).where(inArray(payoutEvents.seq, [...seqs]));
    },
    schedule: (accountId) => first(db.select().from(payoutSchedules).where(eq(payoutSchedules.accountId, accountId))),
    putSchedule: async (row) => void (await db.insert(payoutSchedules).values(row).onConflictDoUpdate({ target: payoutSchedules.accountId, set: REPLACE_SCHEDULE })),
    deleteSchedule: async (accountId) => void (await db.delete(payoutSchedules).where(eq(payoutSchedules.accountId, accountId))),
    dueSchedules: (now, limit) => db.select().from(payoutSchedules).where(lte(payoutSchedules.nextRunAt, now)).orderBy(asc(payoutSchedules.nextRunAt)).limit(limit),
    // The check and the move are one statement: of two replicas running one schedule, one moves it.
    advanceSchedule: async (accountId, from, to) => (await db.update(payoutSchedules).set({ nextRunAt: to }).where(scheduleAt(payoutSchedules, accountId, from)).returning({ a: payoutSchedules.accountId })).length > 0,
  };
}
