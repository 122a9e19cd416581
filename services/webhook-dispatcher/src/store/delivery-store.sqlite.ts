import { join } from "node:path";
import { eq, sql } from "drizzle-orm";
import { GroupCommit, openStore, placeholders, sqliteDb } from "@payaccept/platform";
import { healthFigures, withAttempts } from "./delivery-log.ts";
import type { DeliveryStore, NewDelivery } from "./delivery-store.ts";
import { deliveries, schema } from "./schema.sqlite.ts";
import { deliveryStatements, occurredSince, pendingSeries } from "./delivery-terms.ts";
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
  const { sqlite, db } = openStore(path, schema, MIGRATIONS, { tempInMemory: true });
  const q = deliveryStatements(sqliteDb(db), schema);
  const attempts = new GroupCommit(sqlite);

  const insertDelivery = q
    .insertDeliveries({
      ...placeholders("id", "shopId", "paymentId", "status", "orderId", "body", "occurredAt", "createdAt", "traceContext"),
      nextAttemptAt: p("createdAt"),
      updatedAt: p("createdAt"),
    })
    .prepare();
  const byId = q.byId(p("id")).prepare();
  const insertAttempt = q.insertAttempt(placeholders("deliveryId", "series", "attempt", "startedAt", "durationMs", "httpStatus", "errorCode", "errorParams")).prepare();
  const applyAttempt = q.applyAttempt(p("deliveryId"), p("series"), p("attempt"), placeholders("result", "lastErrorCode", "lastErrorParams", "nextAttemptAt", "at")).prepare();
  const restartOne = q.restart(p("shopId"), p("id"), p("at")).prepare();
  const unqueued = q.unqueued(p("limit")).prepare();
  const latestError = q.latestError(p("shopId")).prepare();
  // SQLite's max(a, b) (PostgreSQL's greatest): a relay confirming an older series never lowers a
  // newer mark. One prepared UPDATE per row here, in one IMMEDIATE transaction; PostgreSQL marks a
  // batch with one statement under its rows' locks.
  const markQueued = db
    .update(deliveries)
    .set({ queuedSeries: sql`max(${deliveries.queuedSeries}, ${p("series")})` })
    .where(eq(deliveries.id, p("id")))
    .prepare();

  const attemptsOf = (ids: string[]) => (ids.length === 0 ? [] : q.attemptsOf(ids).all());

  return {
    async insertDeliveries(ds: NewDelivery[]) {
      return sqlite.transaction(() => ds.map((d) => insertDelivery.all({ traceContext: null, ...d }).length === 1)).immediate();
    },
    async get(id) {
      return byId.get({ id });
    },
    // The attempts logged in one turn of the event loop share a commit (each in its own
    // savepoint): one transaction per attempt was a sixth of the dispatcher's CPU at its maximum.
    recordAttempt: (a, next) =>
      attempts.run(() => {
        if (insertAttempt.all(a).length === 0) return false;
        applyAttempt.run({ deliveryId: a.deliveryId, series: a.series, attempt: a.attempt, ...next });
        return true;
      }),
    async restart(shopId, id, at) {
      return restartOne.get({ shopId, id, at });
    },
    // One UPDATE: it holds the file's write lock from its first row to its last.
    async restartSince(shopId, since, at) {
      return q.restartAll(occurredSince(deliveries, shopId, since), at).all().length;
    },
    async unqueued(limit) {
      return unqueued.all({ limit });
    },
    async requeuePending() {
      return q.requeue(pendingSeries(deliveries)).all().length;
    },
    async markQueuedMany(rows) {
      if (rows.length === 0) return;
      sqlite.transaction(() => {
        for (const r of rows) markQueued.run({ id: r.id, series: r.series });
      }).immediate();
    },
    async list(query) {
      const rows = q.page(query).all();
      return withAttempts(rows, attemptsOf(rows.map((r) => r.id)));
    },
    async health(shopIds, fromDay, toDay) {
      return healthFigures(q.healthCells(shopIds, fromDay, toDay).all(), async (shopId) => {
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
