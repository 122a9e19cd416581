import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { DELIVERY_RESULTS, WEBHOOK_UNSENT_REASON, type Reason } from "@payaccept/contracts";

/** A delivery that is failing: given up on, blocked, or still retrying after an error; one that found no URL is unsent, not failing. */
export const FAILING = sql`((result in ('exhausted', 'blocked') or (result = 'pending' and last_error_code is not null)) and coalesce(last_error_code, '') <> ${sql.raw(`'${WEBHOOK_UNSENT_REASON}'`)})`;

/**
 * One row per payment event (payment id, status): the webhook body serialised once, and the state
 * of its current attempt series. A manual resend or a replay starts a new series on the same row.
 * Times are epoch milliseconds.
 */
export const deliveries = sqliteTable(
  "deliveries",
  {
    id: text("id").primaryKey(),
    shopId: text("shop_id").notNull(),
    paymentId: text("payment_id").notNull(),
    status: text("status").notNull(),
    orderId: text("order_id").notNull(),
    /** The exact bytes sent on every attempt of every series. */
    body: text("body").notNull(),
    occurredAt: integer("occurred_at").notNull(),
    createdAt: integer("created_at").notNull(),
    series: integer("series").notNull().default(1),
    /** The highest series whose dispatch message JetStream has confirmed; below `series` = still to publish. */
    queuedSeries: integer("queued_series").notNull().default(0),
    /** Attempts made in the current series. */
    seriesAttempts: integer("series_attempts").notNull().default(0),
    result: text("result", { enum: DELIVERY_RESULTS }).notNull().default("pending"),
    /** Why the series' last attempt failed: a reason of the catalogue and its parameters as JSON (failure-columns.ts). */
    lastErrorCode: text("last_error_code").$type<Reason>(),
    lastErrorParams: text("last_error_params"),
    /** No attempt of the current series starts before this moment. */
    nextAttemptAt: integer("next_attempt_at"),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    // The consumer's idempotency key: a redelivered or re-published event never makes a second delivery.
    uniqueIndex("deliveries_payment_status").on(t.paymentId, t.status),
    index("deliveries_shop_id").on(t.shopId, t.id),
    index("deliveries_shop_occurred").on(t.shopId, t.occurredAt),
    // The delivery log's filters, each newest first.
    index("deliveries_shop_status_id").on(t.shopId, t.status, t.id),
    index("deliveries_shop_order_id").on(t.shopId, t.orderId, t.id),
    index("deliveries_shop_failing").on(t.shopId, t.id).where(FAILING),
    index("deliveries_unqueued").on(t.id).where(sql`queued_series < series`),
  ],
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
 * (HEALTH_STATES). Kept by SQLite triggers on `deliveries` (migrations 0001_log_filters_health,
 * 0004_health_unsent_first_kept), so every insert and update of a delivery, one by one or in bulk
 * (replay), moves its count in the same transaction.
 */
export const healthDaily = sqliteTable(
  "delivery_health_daily",
  {
    shopId: text("shop_id").notNull(),
    day: text("day").notNull(),
    state: text("state", { enum: HEALTH_STATES }).notNull(),
    count: integer("count").notNull(),
  },
  (t) => [primaryKey({ columns: [t.shopId, t.day, t.state] })],
);

/** One row per attempt; the key makes a redelivered attempt impossible to log twice. */
export const attempts = sqliteTable(
  "attempts",
  {
    deliveryId: text("delivery_id")
      .notNull()
      .references(() => deliveries.id),
    series: integer("series").notNull(),
    attempt: integer("attempt").notNull(),
    startedAt: integer("started_at").notNull(),
    durationMs: integer("duration_ms").notNull(),
    httpStatus: integer("http_status"),
    errorCode: text("error_code").$type<Reason>(),
    errorParams: text("error_params"),
  },
  (t) => [primaryKey({ columns: [t.deliveryId, t.series, t.attempt] })],
);

export const schema = { deliveries, attempts, healthDaily };
export type DeliveryRow = typeof deliveries.$inferSelect;
export type AttemptRow = typeof attempts.$inferSelect;
