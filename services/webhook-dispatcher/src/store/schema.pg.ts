import { sql } from "drizzle-orm";
import { bigint, index, integer, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";
import { DELIVERY_RESULTS, type Reason } from "@payaccept/contracts";
import { FAILING, HEALTH_STATES } from "./schema.ts";

/**
 * The PostgreSQL twin of schema.ts (same tables, columns, keys and indexes; the drift test compares
 * them). Epoch-millisecond times are bigint here: SQLite's integer is 64-bit, PostgreSQL's is not.
 */
const epochMs = (name: string) => bigint(name, { mode: "number" });

export const deliveries = pgTable(
  "deliveries",
  {
    id: text("id").primaryKey(),
    shopId: text("shop_id").notNull(),
    paymentId: text("payment_id").notNull(),
    status: text("status").notNull(),
    orderId: text("order_id").notNull(),
    body: text("body").notNull(),
    occurredAt: epochMs("occurred_at").notNull(),
    createdAt: epochMs("created_at").notNull(),
    series: integer("series").notNull().default(1),
    queuedSeries: integer("queued_series").notNull().default(0),
    seriesAttempts: integer("series_attempts").notNull().default(0),
    result: text("result", { enum: DELIVERY_RESULTS }).notNull().default("pending"),
    lastErrorCode: text("last_error_code").$type<Reason>(),
    lastErrorParams: text("last_error_params"),
    nextAttemptAt: epochMs("next_attempt_at"),
    updatedAt: epochMs("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("deliveries_payment_status").on(t.paymentId, t.status),
    index("deliveries_shop_id").on(t.shopId, t.id),
    index("deliveries_shop_occurred").on(t.shopId, t.occurredAt),
    index("deliveries_shop_status_id").on(t.shopId, t.status, t.id),
    index("deliveries_shop_order_id").on(t.shopId, t.orderId, t.id),
    index("deliveries_shop_failing").on(t.shopId, t.id).where(FAILING),
    index("deliveries_unqueued").on(t.id).where(sql`queued_series < series`),
  ],
);

export const attempts = pgTable(
  "attempts",
  {
    deliveryId: text("delivery_id")
      .notNull()
      .references(() => deliveries.id),
    series: integer("series").notNull(),
    attempt: integer("attempt").notNull(),
    startedAt: epochMs("started_at").notNull(),
    durationMs: integer("duration_ms").notNull(),
    httpStatus: integer("http_status"),
    errorCode: text("error_code").$type<Reason>(),
    errorParams: text("error_params"),
  },
  (t) => [primaryKey({ columns: [t.deliveryId, t.series, t.attempt] })],
);

/**
 * The overview's webhook health rollup (schema.ts), kept by PL/pgSQL triggers on `deliveries`
 * (migrations 0001_log_filters_health, 0004_health_counted_per_statement: the rows of one insert
 * counted per cell, every change per row) in the same transaction as every change of a delivery.
 */
export const healthDaily = pgTable(
  "delivery_health_daily",
  {
    shopId: text("shop_id").notNull(),
    day: text("day").notNull(),
    state: text("state", { enum: HEALTH_STATES }).notNull(),
    count: integer("count").notNull(),
  },
  (t) => [primaryKey({ columns: [t.shopId, t.day, t.state] })],
);

export const pgSchema = { deliveries, attempts, healthDaily };
