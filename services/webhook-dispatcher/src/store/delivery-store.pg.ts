import { asc, desc, eq, inArray, sql, type SQL } from "drizzle-orm";
import type { BunSQLDatabase } from "drizzle-orm/bun-sql";
import { healthFigures, logFilter, withAttempts } from "./delivery-log.ts";
import type { DeliveryStore, NewDelivery } from "./delivery-store.ts";
import { attempts, deliveries, healthDaily, type schema as pgSchema } from "./schema.pg.ts";
import {
  attemptOrder,
  attemptsOfDeliveries,
  attemptSeries,
  failingWithError,
  healthCells,
  healthDays,
  newSeriesSet,
  occurredSince,
  shopDelivery,
  unqueuedSeries,
} from "./delivery-terms.ts";
import { failureFrom } from "./failure-columns.ts";

export type PgDeliveryDb = BunSQLDatabase<typeof pgSchema>;

/**
 * Intake order: by shop, moment, payment and status. Two replicas inserting overlapping batches
 * then take the health rollup's cells (shop, day) and wait on the UNIQUE key in one order, never
 * in a cycle.
 */
const intakeOrder = (a: NewDelivery, b: NewDelivery) =>
  compare(a.shopId, b.shopId) || a.occurredAt - b.occurredAt || compare(a.paymentId, b.paymentId) || compare(a.status, b.status);
const compare = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);

/**
 * The delivery store on PostgreSQL. There is no file lock to lean on: each write names what it
 * serialises on (docs/webhooks.md, "The store on two engines"): the UNIQUE (payment_id, status)
 * key at intake, the attempts primary key when logging an attempt, and the row lock of an UPDATE
 * for series changes. Updates of many rows lock them in id order first, so two such statements
 * (a replay and the relay's marking, two replays) queue behind each other instead of deadlocking.
 */
export function pgDeliveryStore(db: PgDeliveryDb, close: () => Promise<void>): DeliveryStore {
  /** The rows matching `where`, locked in id order: the subquery of every multi-row UPDATE. */
  const lockedInIdOrder = (where: SQL | undefined) =>
    inArray(deliveries.id, db.select({ id: deliveries.id }).from(deliveries).where(where).orderBy(asc(deliveries.id)).for("update"));

  const attemptsOf = async (ids: string[]) =>
    ids.length === 0
      ? []
      : db.select().from(attempts).where(attemptsOfDeliveries(attempts, ids)).orderBy(...attemptOrder(attempts));

  return {
    async insertDeliveries(ds) {
      if (ds.length === 0) return [];
      // One statement, so one commit; a pair already present, or twice in the batch, is skipped
      // by ON CONFLICT DO NOTHING and is missing from RETURNING. A replica inserting the same pair
      // at the same moment waits for this commit and then skips it.
      const rows = [...ds].sort(intakeOrder).map((d) => ({ ...d, nextAttemptAt: d.createdAt, updatedAt: d.createdAt }));
      const inserted = await db.insert(deliveries).values(rows).onConflictDoNothing().returning({ id: deliveries.id });
      const created = new Set(inserted.map((r) => r.id));
      return ds.map((d) => created.has(d.id));
    },

    async get(id) {
      const [row] = await db.select().from(deliveries).where(eq(deliveries.id, id));
      return row;
    },

    async recordAttempt(a, next) {
      // The attempts primary key is the lock: a second copy's insert of the same attempt waits for
      // this transaction and then does nothing, so only the first moves the series on.
      return db.transaction(async (tx) => {
        const logged = await tx.insert(attempts).values(a).onConflictDoNothing().returning({ attempt: attempts.attempt });
        if (logged.length === 0) return false;
        await tx
          .update(deliveries)
          .set({
            seriesAttempts: a.attempt,
            result: next.result,
            lastErrorCode: next.lastErrorCode,
            lastErrorParams: next.lastErrorParams,
            nextAttemptAt: next.nextAttemptAt,
            updatedAt: next.at,
          })
          .where(attemptSeries(deliveries, a.deliveryId, a.series));
        return true;
      });
    },

    async restart(shopId, id, at) {
      // series + 1 is evaluated under the row lock: two resends at once make two series, one after the other.
      const [row] = await db
        .update(deliveries)
        .set(newSeriesSet(deliveries, at))
        .where(shopDelivery(deliveries, shopId, id))
        .returning();
      return row;
    },

    async restartSince(shopId, since, at) {
      const rows = await db
        .update(deliveries)
        .set(newSeriesSet(deliveries, at))
        .where(lockedInIdOrder(occurredSince(deliveries, shopId, since)))
        .returning({ id: deliveries.id });
      return rows.length;
    },

    async unqueued(limit) {
      return db
        .select({ id: deliveries.id, shopId: deliveries.shopId, series: deliveries.series, traceContext: deliveries.traceContext })
        .from(deliveries)
        .where(unqueuedSeries(deliveries))
        .orderBy(asc(deliveries.id))
        .limit(limit);
    },

    async requeuePending() {
      const rows = await db
        .update(deliveries)
        .set({ queuedSeries: 0 })
        .where(lockedInIdOrder(eq(deliveries.result, "pending")))
        .returning({ id: deliveries.id });
      return rows.length;
    },

    async markQueuedMany(rows) {
      if (rows.length === 0) return;
      // greatest() under the row lock: a relay confirming an older series never lowers a newer mark.
      const confirmed = sql.join(rows.map((r) => sql`when ${r.id} then ${r.series}::integer`), sql` `);
      await db
        .update(deliveries)
        .set({ queuedSeries: sql`greatest(${deliveries.queuedSeries}, case ${deliveries.id} ${confirmed} end)` })
        .where(lockedInIdOrder(inArray(deliveries.id, rows.map((r) => r.id))));
    },

    async list(q) {
      const rows = await db.select().from(deliveries).where(logFilter(q, deliveries)).orderBy(desc(deliveries.id)).limit(q.limit);
      return withAttempts(rows, await attemptsOf(rows.map((r) => r.id)));
    },

    async health(shopIds, fromDay, toDay) {
      const cells = await db
        .select(healthCells(healthDaily))
        .from(healthDaily)
        .where(healthDays(healthDaily, shopIds, fromDay, toDay))
        .groupBy(healthDaily.shopId, healthDaily.state)
        .orderBy(healthDaily.shopId, healthDaily.state);
      return healthFigures(cells, async (shopId) => {
        const [row] = await db
          .select({ code: deliveries.lastErrorCode, params: deliveries.lastErrorParams })
          .from(deliveries)
          .where(failingWithError(deliveries, shopId))
          .orderBy(desc(deliveries.id))
          .limit(1);
        return row ? failureFrom(row.code, row.params) : null;
      });
    },

    attemptsOf(id) {
      return attemptsOf([id]);
    },

    close,
  };
}
