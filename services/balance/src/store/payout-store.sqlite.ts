import { and, asc, desc, eq, inArray, isNull, lt, lte, sql } from "drizzle-orm";
import type { BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import type { PayoutOps } from "./payout-store.ts";
import { orderOfPayout, payoutIn, payoutOfKey, REPLACE_SCHEDULE, scheduleAt, sentOn, statementColumn, transitionSet, withOrder } from "./payout-terms.ts";
import { bankStatements, paymentOrders, payoutBatches, payoutEvents, payouts, payoutSchedules, type schema } from "./schema.sqlite.ts";

const p = sql.placeholder;

/** The payouts' statements on the ledger's SQLite file: the frequent ones prepared once, the rest built per call. */
export function sqlitePayoutOps(db: BunSQLiteDatabase<typeof schema>): PayoutOps {
  const insertPayout = db
    .insert(payouts)
    .values({
      id: p("id"),
      accountId: p("accountId"),
      amountKopecks: p("amountKopecks"),
      status: sql`'PENDING'`,
      idempotencyKey: p("idempotencyKey"),
      scheduled: p("scheduled"),
      createdAt: p("createdAt"),
    })
    .returning()
    .prepare();
  const payoutByKey = db.select().from(payouts).where(payoutOfKey(payouts, p("accountId"), p("idempotencyKey"))).prepare();
  const payoutById = db.select(withOrder(payouts, paymentOrders)).from(payouts).leftJoin(paymentOrders, orderOfPayout(payouts, paymentOrders)).where(eq(payouts.id, p("id"))).prepare();
  const latestPayouts = db
    .select(withOrder(payouts, paymentOrders))
    .from(payouts)
    .leftJoin(paymentOrders, orderOfPayout(payouts, paymentOrders))
    .where(and(eq(payouts.accountId, p("accountId")), lt(payouts.id, p("before"))))
    .orderBy(desc(payouts.id))
    .limit(p("limit"))
    .prepare();
  const addEvent = db
    .insert(payoutEvents)
    .values({ payoutId: p("payoutId"), status: p("status"), event: p("event") })
    .onConflictDoNothing()
    .returning({ seq: payoutEvents.seq })
    .prepare();
  const unpublished = db.select().from(payoutEvents).where(isNull(payoutEvents.publishedAt)).orderBy(asc(payoutEvents.seq)).limit(p("limit")).prepare();

  return {
    insertPayout: async (r) => insertPayout.get(r)!,
    payoutByKey: async (accountId, idempotencyKey) => payoutByKey.get({ accountId, idempotencyKey }),
    payout: async (id) => payoutById.get({ id }),
    // Ids are UUIDv7 in lowercase hex: "~" sorts after every one of them (SQLite compares bytes).
    latestPayouts: async (accountId, limit, before) => latestPayouts.all({ accountId, limit, before: before ?? "~" }),
    transitionPayout: async (id, from, to, change) => db.update(payouts).set(transitionSet(to, change)).where(payoutIn(payouts, id, from)).returning().get(),
    payoutsInStatus: async (status, limit) =>
      db.select(withOrder(payouts, paymentOrders)).from(payouts).leftJoin(paymentOrders, orderOfPayout(payouts, paymentOrders)).where(eq(payouts.status, status)).orderBy(asc(payouts.id)).limit(limit).all(),
    pendingPayouts: async (limit, accountIds) =>
      db
        .select()
        .from(payouts)
        .where(and(eq(payouts.status, "PENDING"), accountIds ? inArray(payouts.accountId, [...accountIds]) : undefined))
        .orderBy(asc(payouts.id))
        .limit(limit)
        .all(),
    insertPaymentOrder: async (o) => db.insert(paymentOrders).values(o).returning().get(),
    payoutsByReference: async (references) =>
      references.length === 0
        ? []
        : db.select(withOrder(payouts, paymentOrders)).from(paymentOrders).innerJoin(payouts, orderOfPayout(payouts, paymentOrders)).where(inArray(paymentOrders.reference, [...references])).all(),
    sentOnRail: async (rail, limit, unsubmitted) =>
      db
        .select(withOrder(payouts, paymentOrders))
        .from(paymentOrders)
        .innerJoin(payouts, orderOfPayout(payouts, paymentOrders))
        .where(sentOn(payouts, paymentOrders, rail, unsubmitted))
        .orderBy(asc(paymentOrders.seq))
        .limit(limit)
        .all(),
    markSubmitted: async (payoutId, at) => void db.update(paymentOrders).set({ submittedAt: at }).where(and(eq(paymentOrders.payoutId, payoutId), isNull(paymentOrders.submittedAt))).run(),
    markStatement: async (payoutId, line, sha256) => void db.update(paymentOrders).set({ [statementColumn(line)]: sha256 }).where(eq(paymentOrders.payoutId, payoutId)).run(),
    insertBatch: async (row) => void db.insert(payoutBatches).values(row).run(),
    batch: async (id) => db.select().from(payoutBatches).where(eq(payoutBatches.id, id)).get(),
    latestBatches: async (limit) => db.select().from(payoutBatches).orderBy(desc(payoutBatches.id)).limit(limit).all(),
    insertStatement: async (row) => db.insert(bankStatements).values(row).onConflictDoNothing().returning({ sha256: bankStatements.sha256 }).all().length > 0,
    statement: async (sha256) => db.select().from(bankStatements).where(eq(bankStatements.sha256, sha256)).get(),
    addPayoutEvent: async (e) => addEvent.get(e) !== undefined,
    unpublishedPayoutEvents: async (limit) => unpublished.all({ limit }),
    markPayoutEventsPublished: async (seqs, at) => void (seqs.length === 0 ? undefined : db.update(payoutEvents).set({ publishedAt: at }).where(inArray(payoutEvents.seq, [...seqs])).run()),
    schedule: async (accountId) => db.select().from(payoutSchedules).where(eq(payoutSchedules.accountId, accountId)).get(),
    putSchedule: async (row) => void db.insert(payoutSchedules).values(row).onConflictDoUpdate({ target: payoutSchedules.accountId, set: REPLACE_SCHEDULE }).run(),
    deleteSchedule: async (accountId) => void db.delete(payoutSchedules).where(eq(payoutSchedules.accountId, accountId)).run(),
    dueSchedules: async (now, limit) => db.select().from(payoutSchedules).where(lte(payoutSchedules.nextRunAt, now)).orderBy(asc(payoutSchedules.nextRunAt)).limit(limit).all(),
    advanceSchedule: async (accountId, from, to) => db.update(payoutSchedules).set({ nextRunAt: to }).where(scheduleAt(payoutSchedules, accountId, from)).returning({ a: payoutSchedules.accountId }).all().length > 0,
  };
}
