import { join } from "node:path";
import { asc, desc, eq, sql } from "drizzle-orm";
import { openStore } from "@payaccept/platform";
import { healthFigures, logFilter, withAttempts } from "./delivery-log.ts";
import type { DeliveryStore, NewDelivery } from "./delivery-store.ts";
import { attempts, deliveries, healthDaily, schema } from "./schema.sqlite.ts";
import { attemptOrder, attemptsOfDeliveries, attemptSeries, failingWithError, healthCells, healthDays, newSeriesSet, occurredSince, shopDelivery, unqueuedSeries } from "./delivery-terms.ts";
import { failureFrom } from "./failure-columns.ts";

const MIGRATIONS = join(import.meta.dir, "../../drizzle");
const p = sql.placeholder;

/**
 * webhooks.db: hot-path statements are prepared once; every method runs on the one SQLite
 * connection, so the multi-statement ones are transactions. Replicas on one host share the file:
 * every write is one statement or an IMMEDIATE transaction, which takes the file's write lock up
 * front and so waits for another process's instead of failing on an upgrade from a read lock.
 */
export function openSqliteDeliveryStore(path: string): DeliveryStore {
  const { sqlite, db } = openStore(path, schema, MIGRATIONS);

  const insertDelivery = db
    .insert(deliveries)
    .values({
      id: p("id"),
      shopId: p("shopId"),
      paymentId: p("paymentId"),
      status: p("status"),
      orderId: p("orderId"),
      body: p("body"),
      occurredAt: p("occurredAt"),
      createdAt: p("createdAt"),
      traceContext: p("traceContext"),
      nextAttemptAt: p("createdAt"),
      updatedAt: p("createdAt"),
    })
    .onConflictDoNothing()
    .returning({ id: deliveries.id })
    .prepare();

  const byId = db.select().from(deliveries).where(eq(deliveries.id, p("id"))).prepare();

  const insertAttempt = db
    .insert(attempts)
    .values({
      deliveryId: p("deliveryId"),
      series: p("series"),
      attempt: p("attempt"),
      startedAt: p("startedAt"),
      durationMs: p("durationMs"),
      httpStatus: p("httpStatus"),
      errorCode: p("errorCode"),
      errorParams: p("errorParams"),
    })
    .onConflictDoNothing()
    .returning({ attempt: attempts.attempt })
    .prepare();

  const applyAttempt = db
    .update(deliveries)
    .set({
      seriesAttempts: sql`${p("attempt")}`,
      result: sql`${p("result")}`,
      lastErrorCode: sql`${p("lastErrorCode")}`,
      lastErrorParams: sql`${p("lastErrorParams")}`,
      nextAttemptAt: sql`${p("nextAttemptAt")}`,
      updatedAt: sql`${p("at")}`,
    })
    .where(attemptSeries(deliveries, p("deliveryId"), p("series")))
    .prepare();

  const restartOne = db
    .update(deliveries)
    .set(newSeriesSet(deliveries, sql`${p("at")}`))
    .where(shopDelivery(deliveries, p("shopId"), p("id")))
    .returning()
    .prepare();

  const unqueued = db
    .select({ id: deliveries.id, shopId: deliveries.shopId, series: deliveries.series, traceContext: deliveries.traceContext })
    .from(deliveries)
    .where(unqueuedSeries(deliveries))
    .orderBy(asc(deliveries.id))
    .limit(p("limit"))
    .prepare();

  const markQueued = db
    .update(deliveries)
    .set({ queuedSeries: sql`max(${deliveries.queuedSeries}, ${p("series")})` })
    .where(eq(deliveries.id, p("id")))
    .prepare();

  const latestError = db
    .select({ code: deliveries.lastErrorCode, params: deliveries.lastErrorParams })
    .from(deliveries)
    .where(failingWithError(deliveries, p("shopId")))
    .orderBy(desc(deliveries.id))
    .limit(1)
    .prepare();

  const attemptsOf = (ids: string[]) =>
    ids.length === 0
      ? []
      : db.select().from(attempts).where(attemptsOfDeliveries(attempts, ids)).orderBy(...attemptOrder(attempts)).all();

  return {
    async insertDeliveries(ds: NewDelivery[]) {
      return sqlite.transaction(() => ds.map((d) => insertDelivery.all({ traceContext: null, ...d }).length === 1)).immediate();
    },

    async get(id) {
      return byId.get({ id });
    },

    async recordAttempt(a, next) {
      return sqlite.transaction(() => {
        if (insertAttempt.all(a).length === 0) return false;
        applyAttempt.run({ deliveryId: a.deliveryId, series: a.series, attempt: a.attempt, ...next });
        return true;
      }).immediate();
    },

    async restart(shopId, id, at) {
      return restartOne.get({ shopId, id, at });
    },

    async restartSince(shopId, since, at) {
      return db
        .update(deliveries)
        .set(newSeriesSet(deliveries, at))
        .where(occurredSince(deliveries, shopId, since))
        .returning({ id: deliveries.id })
        .all().length;
    },

    async unqueued(limit) {
      return unqueued.all({ limit });
    },

    async requeuePending() {
      return db
        .update(deliveries)
        .set({ queuedSeries: 0 })
        .where(eq(deliveries.result, "pending"))
        .returning({ id: deliveries.id })
        .all().length;
    },

    async markQueuedMany(rows) {
      if (rows.length === 0) return;
      sqlite.transaction(() => {
        for (const r of rows) markQueued.run({ id: r.id, series: r.series });
      }).immediate();
    },

    async list(q) {
      const rows = db.select().from(deliveries).where(logFilter(q, deliveries)).orderBy(desc(deliveries.id)).limit(q.limit).all();
      return withAttempts(rows, attemptsOf(rows.map((r) => r.id)));
    },

    async health(shopIds, fromDay, toDay) {
      const cells = db
        .select(healthCells(healthDaily))
        .from(healthDaily)
        .where(healthDays(healthDaily, shopIds, fromDay, toDay))
        .groupBy(healthDaily.shopId, healthDaily.state)
        .orderBy(healthDaily.shopId, healthDaily.state)
        .all();
      return healthFigures(cells, async (shopId) => {
        const row = latestError.get({ shopId });
        return row ? failureFrom(row.code, row.params) : null;
      });
    },

    async attemptsOf(id) {
      return attemptsOf([id]);
    },

    async close() {
      sqlite.close();
    },
  };
}
