import { and, asc, desc, eq, gte, inArray, isNotNull, lte, sql, type SQL } from "drizzle-orm";
import type { DeliveryResult, Reason } from "@payaccept/contracts";
import type { Db, Dialect, EitherTables, Value, Values } from "@payaccept/platform";
import type { OnEither } from "@payaccept/platform/table";
import { logFilter } from "./delivery-log.ts";
import type { LogQuery } from "./delivery-store.ts";
import { FAILING } from "./schema.ts";
import type * as tables from "./schema.ts";

/**
 * What both engines' delivery statements share, on either schema's columns: the terms, and at the
 * end (`deliveryStatements`) the statements themselves; each engine file keeps only how they run
 * (prepared on SQLite, awaited and row-locked on PostgreSQL). A value may be a placeholder, for
 * SQLite's prepared statements.
 */

type Deliveries = OnEither<typeof tables.deliveries>;
type Attempts = OnEither<typeof tables.attempts>;
type HealthDaily = OnEither<typeof tables.healthDaily>;

/** A new attempt series: the counter moves on under the row's write, so two resends make two series. */
const newSeriesSet = (d: Deliveries, at: Value<number>) => ({
  series: sql`${d.series} + 1`,
  seriesAttempts: 0,
  result: "pending" as const,
  lastErrorCode: null,
  lastErrorParams: null,
  nextAttemptAt: at,
  updatedAt: at,
});

/** Only the series the attempt belongs to: a resend may have started a newer one meanwhile. */
const attemptSeries = (d: Deliveries, deliveryId: Value<string>, series: Value<number>) => and(eq(d.id, deliveryId), eq(d.series, series));

/** One delivery, if it is the shop's. */
const shopDelivery = (d: Deliveries, shopId: Value<string>, id: Value<string>) => and(eq(d.id, id), eq(d.shopId, shopId));

/** The shop's deliveries whose event occurred at or after `since` (a replay). */
export const occurredSince = (d: Deliveries, shopId: string, since: number) => and(eq(d.shopId, shopId), gte(d.occurredAt, since));

/** Series whose dispatch message JetStream has not confirmed yet. */
const unqueuedSeries = (d: Deliveries) => sql`${d.queuedSeries} < ${d.series}`;

/** The shop's failing deliveries that keep an error: the newest of them is the endpoint's latest error. */
const failingWithError = (d: Deliveries, shopId: Value<string>) => and(eq(d.shopId, shopId), FAILING, isNotNull(d.lastErrorCode));

/** The attempts of these deliveries, and their order: by series, then attempt. */
const attemptsOfDeliveries = (a: Attempts, ids: string[]) => inArray(a.deliveryId, ids);
const attemptOrder = (a: Attempts) => [asc(a.series), asc(a.attempt)];

/** The health rollup's cells of the shops over Moscow days [fromDay, toDay], summed per shop and state. */
export const healthCells = <H extends HealthDaily>(h: H) => ({ shopId: h.shopId as H["shopId"], state: h.state as H["state"], count: sql<number>`sum(${h.count})`.mapWith(Number) });
const healthDays = (h: HealthDaily, shopIds: string[], fromDay: string, toDay: string) => and(inArray(h.shopId, shopIds), gte(h.day, fromDay), lte(h.day, toDay));

/** Series still waiting for an attempt: their dispatch messages were lost with a lost stream. */
export const pendingSeries = (d: Deliveries) => eq(d.result, "pending");

/** The statements of the delivery store, the same on both engines, built on `db` over that engine's tables `t`. */
export function deliveryStatements<E extends Dialect>(db: Db<E>, t: EitherTables<typeof tables.tables>) {
  const { deliveries: d, attempts: a, healthDaily: h } = t;
  return {
    /** A (payment id, status) pair already present is skipped by ON CONFLICT DO NOTHING and is missing from RETURNING. */
    insertDeliveries: (rows: Values<Deliveries> | Values<Deliveries>[]) => db.insert(d).values(rows).onConflictDoNothing().returning({ id: d.id }),
    byId: (id: Value<string>) => db.select().from(d).where(eq(d.id, id)),
    /** An attempt number already logged (a redelivered copy's) is skipped: nothing comes back. */
    insertAttempt: (row: Values<Attempts>) => db.insert(a).values(row).onConflictDoNothing().returning({ attempt: a.attempt }),
    /** The series moves on after its attempt `attempt`, if it is still the delivery's current one. */
    applyAttempt: (
      deliveryId: Value<string>,
      series: Value<number>,
      attempt: Value<number>,
      next: { result: Value<DeliveryResult>; lastErrorCode: Value<Reason | null>; lastErrorParams: Value<string | null>; nextAttemptAt: Value<number | null>; at: Value<number> },
    ) =>
      db
        .update(d)
        .set({ seriesAttempts: attempt, result: next.result, lastErrorCode: next.lastErrorCode, lastErrorParams: next.lastErrorParams, nextAttemptAt: next.nextAttemptAt, updatedAt: next.at })
        .where(attemptSeries(d, deliveryId, series)),
    /** A new attempt series of the shop's delivery: series + 1 is evaluated under the row's write, so two resends make two series. */
    restart: (shopId: Value<string>, id: Value<string>, at: Value<number>) => db.update(d).set(newSeriesSet(d, at)).where(shopDelivery(d, shopId, id)).returning(),
    /** A new attempt series for every delivery `which` takes. */
    restartAll: (which: SQL | undefined, at: number) => db.update(d).set(newSeriesSet(d, at)).where(which).returning({ id: d.id }),
    unqueued: (limit: Value<number>) =>
      db.select({ id: d.id, shopId: d.shopId, series: d.series, traceContext: d.traceContext }).from(d).where(unqueuedSeries(d)).orderBy(asc(d.id)).limit(limit),
    /** The series `which` takes go back to the relay. */
    requeue: (which: SQL | undefined) => db.update(d).set({ queuedSeries: 0 }).where(which).returning({ id: d.id }),
    page: (q: LogQuery) => db.select().from(d).where(logFilter(q, d)).orderBy(desc(d.id)).limit(q.limit),
    attemptsOf: (ids: string[]) => db.select().from(a).where(attemptsOfDeliveries(a, ids)).orderBy(...attemptOrder(a)),
    healthCells: (shopIds: string[], fromDay: string, toDay: string) =>
      db.select(healthCells(h)).from(h).where(healthDays(h, shopIds, fromDay, toDay)).groupBy(h.shopId, h.state).orderBy(h.shopId, h.state),
    /** The endpoint's latest error: the newest of the shop's failing deliveries that keep one. */
    latestError: (shopId: Value<string>) => db.select({ code: d.lastErrorCode, params: d.lastErrorParams }).from(d).where(failingWithError(d, shopId)).orderBy(desc(d.id)).limit(1),
  };
}
