import { sql } from "drizzle-orm";
import { bigint, index, integer, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";
import { DELIVERY_RESULTS } from "@payaccept/contracts";

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
    lastError: text("last_error"),
    nextAttemptAt: epochMs("next_attempt_at"),
    updatedAt: epochMs("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("deliveries_payment_status").on(t.paymentId, t.status),
    index("deliveries_shop_id").on(t.shopId, t.id),
    index("deliveries_shop_occurred").on(t.shopId, t.occurredAt),
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
    error: text("error"),
  },
  (t) => [primaryKey({ columns: [t.deliveryId, t.series, t.attempt] })],
);

export const pgSchema = { deliveries, attempts };
