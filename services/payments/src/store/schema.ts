import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { FinalStatus, PaymentMethod, PaymentStatus } from "@payaccept/contracts";

/** Times are epoch milliseconds; money is integer kopecks. */
export const payments = sqliteTable(
  "payments",
  {
    id: text("id").primaryKey(),
    shopId: text("shop_id").notNull(),
    accountId: text("account_id").notNull(),
    /**
     * 1, 2, 3… per shop in insert order, without gaps (rows are never deleted and a failed insert
     * rolls back its number). createdAt is non-decreasing along it, so a page of the list is a
     * range of seq and a count is a subtraction.
     */
    seq: integer("seq").notNull(),
    orderId: text("order_id").notNull(),
    status: text("status").$type<PaymentStatus>().notNull(),
    amountKopecks: integer("amount_kopecks").notNull(),
    commissionKopecks: integer("commission_kopecks").notNull(),
    description: text("description"),
    email: text("email"),
    /** Fixed by the merchant at creation, or chosen by the buyer on start. */
    method: text("method").$type<PaymentMethod>(),
    telegramId: text("telegram_id"),
    metadata: text("metadata", { mode: "json" }).$type<Record<string, unknown>>(),
    successUrl: text("success_url"),
    failUrl: text("fail_url"),
    isTest: integer("is_test", { mode: "boolean" }).notNull(),
    paidAt: integer("paid_at"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    /** When the timer sweeper moves it to EXPIRED; null once nothing is pending. */
    expiresAt: integer("expires_at"),
    providerSessionId: text("provider_session_id"),
    sbpQrPayload: text("sbp_qr_payload"),
    sbpDeepLink: text("sbp_deep_link"),
    cardFormAction: text("card_form_action"),
  },
  (t) => [
    uniqueIndex("payments_shop_order_uq").on(t.shopId, t.orderId),
    uniqueIndex("payments_shop_seq_uq").on(t.shopId, t.seq),
    // Time bounds → seq bounds (covering), and the export keyset on (createdAt, id).
    index("payments_shop_created_idx").on(t.shopId, t.createdAt, t.id, t.seq),
    // Status-filtered pages walk this in seq order without touching rows.
    index("payments_shop_status_seq_idx").on(t.shopId, t.status, t.seq),
    // The dashboard's sort by amount, both directions; status and seq ride along so a page is an index walk.
    index("payments_shop_amount_idx").on(t.shopId, t.amountKopecks, t.seq, t.status),
    index("payments_expires_idx").on(t.expiresAt).where(sql`${t.expiresAt} IS NOT NULL`),
  ],
);
export type PaymentRow = typeof payments.$inferSelect;
export type NewPaymentRow = typeof payments.$inferInsert;

/** Payments per (shop, status), changed in the same transaction as every insert and transition. */
export const statusCounts = sqliteTable(
  "status_counts",
  {
    shopId: text("shop_id").notNull(),
    status: text("status").$type<PaymentStatus>().notNull(),
    count: integer("count").notNull(),
  },
  (t) => [primaryKey({ columns: [t.shopId, t.status] })],
);

/**
 * The dashboard overview's daily rollup: payments created on a Moscow day, by method ("" while the
 * buyer has not chosen one) and current status, with their count and amount. Changed in the same
 * transaction as every insert and transition, so a month is at most days × methods × statuses rows
 * per shop, whatever the number of payments.
 */
export const dailyStats = sqliteTable(
  "daily_stats",
  {
    shopId: text("shop_id").notNull(),
    /** YYYY-MM-DD in Moscow time (UTC+3) of the payment's createdAt. */
    day: text("day").notNull(),
    method: text("method").notNull(),
    status: text("status").$type<PaymentStatus>().notNull(),
    count: integer("count").notNull(),
    sumKopecks: integer("sum_kopecks").notNull(),
  },
  (t) => [primaryKey({ columns: [t.shopId, t.day, t.method, t.status] })],
);

/** Events committed with their transition, published to JetStream by the relay. */
export const outbox = sqliteTable(
  "outbox",
  {
    seq: integer("seq").primaryKey({ autoIncrement: true }),
    /** paymentEventId(paymentId, status): the Nats-Msg-Id; one event per (payment, status). */
    eventId: text("event_id").notNull().unique(),
    paymentId: text("payment_id").notNull(),
    status: text("status").$type<FinalStatus>().notNull(),
    payload: text("payload").notNull(),
    createdAt: integer("created_at").notNull(),
    publishedAt: integer("published_at"),
  },
  (t) => [index("outbox_unpublished_idx").on(t.seq).where(sql`${t.publishedAt} IS NULL`)],
);

export const schema = { payments, statusCounts, dailyStats, outbox };
