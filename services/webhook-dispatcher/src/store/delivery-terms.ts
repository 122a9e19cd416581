import { and, asc, eq, gte, inArray, isNotNull, lte, sql, type Placeholder, type SQL } from "drizzle-orm";
import type { OnEither } from "@payaccept/platform/table";
import { FAILING } from "./schema.ts";
import type * as tables from "./schema.ts";

/**
 * The terms both engines' delivery statements share, on either schema's columns: each engine file
 * keeps only its own statements (prepared ones on SQLite, row locks on PostgreSQL) around them. A
 * value may be a placeholder, for SQLite's prepared statements.
 */

type Deliveries = OnEither<typeof tables.deliveries>;
type Attempts = OnEither<typeof tables.attempts>;
type HealthDaily = OnEither<typeof tables.healthDaily>;
type Value<T> = T | Placeholder;

/** A new attempt series: the counter moves on under the row's write, so two resends make two series. */
export const newSeriesSet = (d: Deliveries, at: SQL | number) => ({
  series: sql`${d.series} + 1`,
  seriesAttempts: 0,
  result: "pending" as const,
  lastErrorCode: null,
  lastErrorParams: null,
  nextAttemptAt: at,
  updatedAt: at,
});

/** Only the series the attempt belongs to: a resend may have started a newer one meanwhile. */
export const attemptSeries = (d: Deliveries, deliveryId: Value<string>, series: Value<number>) => and(eq(d.id, deliveryId), eq(d.series, series));

/** One delivery, if it is the shop's. */
export const shopDelivery = (d: Deliveries, shopId: Value<string>, id: Value<string>) => and(eq(d.id, id), eq(d.shopId, shopId));

/** The shop's deliveries whose event occurred at or after `since` (a replay). */
export const occurredSince = (d: Deliveries, shopId: string, since: number) => and(eq(d.shopId, shopId), gte(d.occurredAt, since));

/** Series whose dispatch message JetStream has not confirmed yet. */
export const unqueuedSeries = (d: Deliveries) => sql`${d.queuedSeries} < ${d.series}`;

/** The shop's failing deliveries that keep an error: the newest of them is the endpoint's latest error. */
export const failingWithError = (d: Deliveries, shopId: Value<string>) => and(eq(d.shopId, shopId), FAILING, isNotNull(d.lastErrorCode));

/** The attempts of these deliveries, and their order: by series, then attempt. */
export const attemptsOfDeliveries = (a: Attempts, ids: string[]) => inArray(a.deliveryId, ids);
export const attemptOrder = (a: Attempts) => [asc(a.series), asc(a.attempt)];

/** The health rollup's cells of the shops over Moscow days [fromDay, toDay], summed per shop and state. */
export const healthCells = <H extends HealthDaily>(h: H) => ({ shopId: h.shopId as H["shopId"], state: h.state as H["state"], count: sql<number>`sum(${h.count})`.mapWith(Number) });
export const healthDays = (h: HealthDaily, shopIds: string[], fromDay: string, toDay: string) => and(inArray(h.shopId, shopIds), gte(h.day, fromDay), lte(h.day, toDay));
