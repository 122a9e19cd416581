import { sql } from "drizzle-orm";
import { check, index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { AnyReasonParams, FinalStatus, PaymentMethod, PaymentStatus, Reason, ReceiptData, RefundEventStatus, RefundStatus } from "@payaccept/contracts";

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
    /** The merchant fixed the method at creation: the buyer cannot switch to another one. */
    methodFixed: integer("method_fixed", { mode: "boolean" }).notNull().default(false),
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
    /** Sum of the SUCCEEDED refunds. */
    refundedKopecks: integer("refunded_kopecks").notNull().default(0),
    /**
     * Sum of the PENDING refunds: promised to buyers, not yet confirmed by the provider. The trigger
     * payments_refunds_within_amount (drizzle/0002_refund_guard.sql) makes the database itself refuse
     * refunded + refunding above the amount, whatever interleaving of requests, sweepers and replicas.
     */
    refundingKopecks: integer("refunding_kopecks").notNull().default(0),
    /** The fiscal receipt with the shop's defaults applied (docs/receipts.md); carried in the payment's events. */
    receipt: text("receipt", { mode: "json" }).$type<ReceiptData>(),
    /**
     * The call id (platform's CALL_ID_HEADER) of the create that made it: a copy of that call
     * (a hedged request) is answered with this payment instead of ORDER_ID_TAKEN.
     */
    createCallId: text("create_call_id"),
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
 * Refunds of a payment. A PENDING one has its amount in payments.refunding_kopecks and is driven to
 * SUCCEEDED or FAILED by the request that made it or, from retry_at on, by the refund sweeper.
 */
export const refunds = sqliteTable(
  "refunds",
  {
    id: text("id").primaryKey(),
    paymentId: text("payment_id")
      .notNull()
      .references(() => payments.id),
    shopId: text("shop_id").notNull(),
    amountKopecks: integer("amount_kopecks").notNull(),
    /** What the refund takes from the merchant's balance: its share of amount − commission (domain/refund-rules.ts). */
    balanceKopecks: integer("balance_kopecks").notNull(),
    reason: text("reason"),
    status: text("status").$type<RefundStatus>().notNull(),
    /** Why a FAILED refund failed: a reason of the catalogue (contracts reasons.ts) and its parameters, never text. */
    failureCode: text("failure_code").$type<Reason>(),
    failureParams: text("failure_params", { mode: "json" }).$type<AnyReasonParams>(),
    idempotencyKey: text("idempotency_key"),
    createdAt: integer("created_at").notNull(),
    completedAt: integer("completed_at"),
    /** When a PENDING refund may next be driven by the sweeper; null once it has ended. */
    retryAt: integer("retry_at"),
  },
  (t) => [
    // A repeated key returns the first refund; NULL keys never collide.
    uniqueIndex("refunds_payment_key_uq").on(t.paymentId, t.idempotencyKey),
    index("refunds_payment_idx").on(t.paymentId, t.id),
    index("refunds_retry_idx").on(t.retryAt).where(sql`${t.retryAt} IS NOT NULL`),
    check("refunds_amount_positive", sql`${t.amountKopecks} > 0 AND ${t.balanceKopecks} >= 0`),
  ],
);
export type RefundRow = typeof refunds.$inferSelect;

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

/**
 * The overview's refunds: SUCCEEDED refunds per shop and Moscow day of their completion, with
 * their count and amount; changed in the transaction that ends each refund.
 */
export const dailyRefunds = sqliteTable(
  "daily_refunds",
  {
    shopId: text("shop_id").notNull(),
    day: text("day").notNull(),
    count: integer("count").notNull(),
    sumKopecks: integer("sum_kopecks").notNull(),
  },
  (t) => [primaryKey({ columns: [t.shopId, t.day] })],
);

/** Events committed with their transition, published to JetStream by the relay. */
export const outbox = sqliteTable(
  "outbox",
  {
    seq: integer("seq").primaryKey({ autoIncrement: true }),
    /** The Nats-Msg-Id: paymentEventId(paymentId, status), one per (payment, status), or refundEventId(refundId). */
    eventId: text("event_id").notNull().unique(),
    /** The payment the event is about, refund events included: a payment's events are published in commit order. */
    paymentId: text("payment_id").notNull(),
    /** payment: a PaymentEvent (status = the payment's); refund: a RefundEvent (status = the refund's). */
    kind: text("kind").$type<"payment" | "refund">().notNull().default("payment"),
    status: text("status").$type<FinalStatus | RefundEventStatus>().notNull(),
    payload: text("payload").notNull(),
    /** The X-Request-Id of the API request that caused the event, when one did: support follows a request to its event. */
    requestId: text("request_id"),
    createdAt: integer("created_at").notNull(),
    publishedAt: integer("published_at"),
  },
  (t) => [index("outbox_unpublished_idx").on(t.seq).where(sql`${t.publishedAt} IS NULL`)],
);

export const schema = { payments, statusCounts, refunds, dailyStats, dailyRefunds, outbox };
