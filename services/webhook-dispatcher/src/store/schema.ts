import { sql } from "drizzle-orm";
import { bothEngines, table, type Row } from "@payaccept/platform/table";
import { DELIVERY_RESULTS, WEBHOOK_UNSENT_REASON, type Reason } from "@payaccept/contracts";
import type { TraceCarrier } from "@payaccept/platform";

/** A delivery that is failing: given up on, blocked, or still retrying after an error; one that found no URL is unsent, not failing. */
export const FAILING = sql`((result in ('exhausted', 'blocked') or (result = 'pending' and last_error_code is not null)) and coalesce(last_error_code, '') <> ${sql.raw(`'${WEBHOOK_UNSENT_REASON}'`)})`;

/**
 * One row per payment event (payment id, status), or per payout event and shop: the webhook body serialised once, and the state
 * of its current attempt series. A manual resend or a replay starts a new series on the same row.
 * Times are epoch milliseconds.
 */
export const deliveries = table(
  "deliveries",
  (k) => ({
    id: k.text("id").primaryKey(),
    shopId: k.text("shop_id").notNull(),
    paymentId: k.text("payment_id").notNull(),
    status: k.text("status").notNull(),
    orderId: k.text("order_id").notNull(),
    /** The exact bytes sent on every attempt of every series. */
    body: k.text("body").notNull(),
    occurredAt: k.bigint("occurred_at").notNull(),
    createdAt: k.bigint("created_at").notNull(),
    /** The trace context (W3C traceparent) of the event's intake: every series' dispatch message continues its trace. */
    traceContext: k.json("trace_context").$type<TraceCarrier>(),
    series: k.integer("series").notNull().default(1),
    /** The highest series whose dispatch message JetStream has confirmed; below `series` = still to publish. */
    queuedSeries: k.integer("queued_series").notNull().default(0),
    /** Attempts made in the current series. */
    seriesAttempts: k.integer("series_attempts").notNull().default(0),
    result: k.text("result", { enum: DELIVERY_RESULTS }).notNull().default("pending"),
    /** Why the series' last attempt failed: a reason of the catalogue and its parameters as JSON (failure-columns.ts). */
    lastErrorCode: k.text("last_error_code").$type<Reason>(),
    lastErrorParams: k.text("last_error_params"),
    /** No attempt of the current series starts before this moment. */
    nextAttemptAt: k.bigint("next_attempt_at"),
    updatedAt: k.bigint("updated_at").notNull(),
  }),
  (t, x) => [
    // The consumers' idempotency key: a redelivered or re-published event never makes a second delivery
    // to a shop (a payment has one shop; a payout's event goes to each live shop of its account).
    x.uniqueIndex("deliveries_event_shop").on(t.paymentId, t.status, t.shopId),
    x.index("deliveries_shop_id").on(t.shopId, t.id),
    x.index("deliveries_shop_occurred").on(t.shopId, t.occurredAt),
    // The delivery log's filters, each newest first.
    x.index("deliveries_shop_status_id").on(t.shopId, t.status, t.id),
    x.index("deliveries_shop_order_id").on(t.shopId, t.orderId, t.id),
    x.index("deliveries_shop_failing").on(t.shopId, t.id).where(FAILING),
    x.index("deliveries_unqueued").on(t.id).where(sql`queued_series < series`),
  ],
  // The health rollup (delivery_health_daily) is kept by each engine's own triggers on this table,
  // written by hand in the migrations: SQLite's one per inserted and one per updated row
  // (drizzle/0001_log_filters_health.sql); PostgreSQL's one per INSERT statement, counting its
  // rows per cell, and one per updated row (drizzle-pg/0001_log_filters_health.sql,
  // 0004_health_counted_per_statement.sql).
  {
    sqlite: { triggers: ["deliveries_health_insert", "deliveries_health_update"] },
    pg: { triggers: ["deliveries_health_inserted", "deliveries_health"] },
  },
);

/**
 * The cells of the health rollup. Each delivery is in exactly one of the first five, as it stands
 * now: delivered; failed (exhausted or blocked); retrying (pending after a failed attempt);
 * pending (not tried yet in its series); unsent (its last attempt found no webhook URL). The
 * other two count, once and for good, how the event's very first attempt went: `first_sent` when
 * attempt 1 of series 1 was sent to a URL, `first_delivered` when it was delivered. A resend or a
 * replay starts a new series and moves the delivery between the first five, never these two, so
 * it cannot lower the first-attempt share.
 */
export const HEALTH_STATES = ["delivered", "failed", "retrying", "pending", "unsent", "first_sent", "first_delivered"] as const;
export type HealthState = (typeof HEALTH_STATES)[number];

/**
 * The overview's webhook health: deliveries per shop, Moscow day of their event and state
 * (HEALTH_STATES). Kept by triggers on `deliveries` (declared there; migrations
 * 0001_log_filters_health and 0004_health_unsent_first_kept), so every insert and update of a
 * delivery, one by one or in bulk (replay), moves its count in the same transaction.
 */
export const healthDaily = table(
  "delivery_health_daily",
  (k) => ({
    shopId: k.text("shop_id").notNull(),
    day: k.text("day").notNull(),
    state: k.text("state", { enum: HEALTH_STATES }).notNull(),
    count: k.integer("count").notNull(),
  }),
  (t, x) => [x.primaryKey(t.shopId, t.day, t.state)],
);

/** One row per attempt; the key makes a redelivered attempt impossible to log twice. */
export const attempts = table(
  "attempts",
  (k) => ({
    deliveryId: k.text("delivery_id").notNull().references(() => deliveries, "id"),
    series: k.integer("series").notNull(),
    attempt: k.integer("attempt").notNull(),
    startedAt: k.bigint("started_at").notNull(),
    durationMs: k.integer("duration_ms").notNull(),
    httpStatus: k.integer("http_status"),
    errorCode: k.text("error_code").$type<Reason>(),
    errorParams: k.text("error_params"),
  }),
  (t, x) => [x.primaryKey(t.deliveryId, t.series, t.attempt)],
);

export type DeliveryRow = Row<typeof deliveries>;
export type AttemptRow = Row<typeof attempts>;

/** The dispatcher's tables; schema.sqlite.ts and schema.pg.ts hand each engine its own. */
export const tables = bothEngines({ deliveries, healthDaily, attempts });
