import { asc, inArray, sql, type SQL } from "drizzle-orm";
import type { BunSQLDatabase } from "drizzle-orm/bun-sql";
import { firstRow as first, pgDb } from "@payaccept/platform";
import { healthFigures, withAttempts } from "./delivery-log.ts";
import type { DeliveryStore, NewDelivery } from "./delivery-store.ts";
import { deliveries, schema, type schema as pgSchema } from "./schema.pg.ts";
import { deliveryStatements, occurredSince, pendingSeries } from "./delivery-terms.ts";
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
  const q = deliveryStatements(pgDb(db), schema);
  /** The rows matching `where`, locked in id order: the subquery of every multi-row UPDATE (SQLite's one writer needs none). */
  const lockedInIdOrder = (where: SQL | undefined) =>
    inArray(deliveries.id, db.select({ id: deliveries.id }).from(deliveries).where(where).orderBy(asc(deliveries.id)).for("update"));
  const attemptsOf = async (ids: string[]) => (ids.length === 0 ? [] : q.attemptsOf(ids));

  return {
    async insertDeliveries(ds) {
      if (ds.length === 0) return [];
      // One statement, so one commit (SQLite: one prepared INSERT per delivery in one IMMEDIATE
      // transaction); a pair already present, or twice in the batch, is missing from RETURNING. A
      // replica inserting the same pair at the same moment waits for this commit and then skips it.
      const rows = [...ds].sort(intakeOrder).map((d) => ({ ...d, nextAttemptAt: d.createdAt, updatedAt: d.createdAt }));
      const created = new Set((await q.insertDeliveries(rows)).map((r) => r.id));
      return ds.map((d) => created.has(d.id));
    },
    get: (id) => first(q.byId(id)),
    async recordAttempt(a, next) {
      // The attempts primary key is the lock: a second copy's insert of the same attempt waits for
      // this transaction and then does nothing, so only the first moves the series on.
      return db.transaction(async (tx) => {
        const run = deliveryStatements(pgDb(tx), schema);
        if ((await run.insertAttempt(a)).length === 0) return false;
        await run.applyAttempt(a.deliveryId, a.series, a.attempt, next);
        return true;
      });
    },
    restart: (shopId, id, at) => first(q.restart(shopId, id, at)),
    restartSince: async (shopId, since, at) => (await q.restartAll(lockedInIdOrder(occurredSince(deliveries, shopId, since)), at)).length,
    unqueued: (limit) => q.unqueued(limit),
    requeuePending: async () => (await q.requeue(lockedInIdOrder(pendingSeries(deliveries)))).length,
    async markQueuedMany(rows) {
      if (rows.length === 0) return;
      // greatest() under the row lock: a relay confirming an older series never lowers a newer mark.
      const confirmed = sql.join(rows.map((r) => sql`when ${r.id} then ${r.series}::integer`), sql` `);
      await db
        .update(deliveries)
        .set({ queuedSeries: sql`greatest(${deliveries.queuedSeries}, case ${deliveries.id} ${confirmed} end)` })
        .where(lockedInIdOrder(inArray(deliveries.id, rows.map((r) => r.id))));
    },
    async list(query) {
      const rows = await q.page(query);
      return withAttempts(rows, await attemptsOf(rows.map((r) => r.id)));
    },
    async health(shopIds, fromDay, toDay) {
      return healthFigures(await q.healthCells(shopIds, fromDay, toDay), async (shopId) => {
        const row = await first(q.latestError(shopId));
        return row ? failureFrom(row.code, row.params) : null;
      });
    },
    attemptsOf: (id) => attemptsOf([id]),
    close,
  };
}
