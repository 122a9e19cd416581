import { sql } from "drizzle-orm";
import { bigint, boolean, check, index, jsonb, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";
import type { AnyReasonParams, FinalStatus, PaymentMethod, PaymentStatus, Reason, ReceiptData, RefundEventStatus, RefundStatus } from "@payaccept/contracts";

/**
 * payments' tables on PostgreSQL: the same tables, keys and indexes as schema.ts (whose comments
 * say what each holds; schema-drift.test.ts keeps the two equal). Kopecks, seqs and epoch ms are
 * bigint, as SQLite's INTEGER is 64-bit.
 */
const int = (name: string) => bigint(name, { mode: "number" });

export const payments = pgTable(
  "payments",
  {
    id: text("id").primaryKey(),
    shopId: text("shop_id").notNull(),
    accountId: text("account_id").notNull(),
    seq: int("seq").notNull(),
    orderId: text("order_id").notNull(),
    status: text("status").$type<PaymentStatus>().notNull(),
    amountKopecks: int("amount_kopecks").notNull(),
    commissionKopecks: int("commission_kopecks").notNull(),
    description: text("description"),
    email: text("email"),
    method: text("method").$type<PaymentMethod>(),
    methodFixed: boolean("method_fixed").notNull().default(false),
    telegramId: text("telegram_id"),
    metadata: jsonb("metadata").$type<Record<string, unknown>>(),
    successUrl: text("success_url"),
    failUrl: text("fail_url"),
    isTest: boolean("is_test").notNull(),
    paidAt: int("paid_at"),
    createdAt: int("created_at").notNull(),
    updatedAt: int("updated_at").notNull(),
    expiresAt: int("expires_at"),
    providerSessionId: text("provider_session_id"),
    sbpQrPayload: text("sbp_qr_payload"),
    sbpDeepLink: text("sbp_deep_link"),
    cardFormAction: text("card_form_action"),
    refundedKopecks: int("refunded_kopecks").notNull().default(0),
    refundingKopecks: int("refunding_kopecks").notNull().default(0),
    receipt: jsonb("receipt").$type<ReceiptData>(),
    createCallId: text("create_call_id"),
  },
  (t) => [
    uniqueIndex("payments_shop_order_uq").on(t.shopId, t.orderId),
    uniqueIndex("payments_shop_seq_uq").on(t.shopId, t.seq),
    index("payments_shop_created_idx").on(t.shopId, t.createdAt, t.id, t.seq),
    index("payments_shop_status_seq_idx").on(t.shopId, t.status, t.seq),
    index("payments_shop_amount_idx").on(t.shopId, t.amountKopecks, t.seq, t.status),
    index("payments_expires_idx").on(t.expiresAt).where(sql`${t.expiresAt} IS NOT NULL`),
    // SQLite's trigger payments_refunds_within_amount, as the constraint PostgreSQL has for it.
    check(
      "payments_refunds_within_amount",
      sql`${t.refundedKopecks} >= 0 AND ${t.refundingKopecks} >= 0 AND ${t.refundedKopecks} + ${t.refundingKopecks} <= ${t.amountKopecks}`,
    ),
  ],
);

export const statusCounts = pgTable(
  "status_counts",
  {
    shopId: text("shop_id").notNull(),
    status: text("status").$type<PaymentStatus>().notNull(),
    count: int("count").notNull(),
  },
  (t) => [primaryKey({ columns: [t.shopId, t.status] })],
);

export const refunds = pgTable(
  "refunds",
  {
    id: text("id").primaryKey(),
    paymentId: text("payment_id")
      .notNull()
      .references(() => payments.id),
    shopId: text("shop_id").notNull(),
    amountKopecks: int("amount_kopecks").notNull(),
    balanceKopecks: int("balance_kopecks").notNull(),
    reason: text("reason"),
    status: text("status").$type<RefundStatus>().notNull(),
    /** Why a FAILED refund failed: a reason of the catalogue (contracts reasons.ts) and its parameters, never text. */
    failureCode: text("failure_code").$type<Reason>(),
    failureParams: jsonb("failure_params").$type<AnyReasonParams>(),
    idempotencyKey: text("idempotency_key"),
    createdAt: int("created_at").notNull(),
    completedAt: int("completed_at"),
    retryAt: int("retry_at"),
  },
  (t) => [
    uniqueIndex("refunds_payment_key_uq").on(t.paymentId, t.idempotencyKey),
    index("refunds_payment_idx").on(t.paymentId, t.id),
    index("refunds_retry_idx").on(t.retryAt).where(sql`${t.retryAt} IS NOT NULL`),
    check("refunds_amount_positive", sql`${t.amountKopecks} > 0 AND ${t.balanceKopecks} >= 0`),
  ],
);

export const dailyStats = pgTable(
  "daily_stats",
  {
    shopId: text("shop_id").notNull(),
    day: text("day").notNull(),
    method: text("method").notNull(),
    status: text("status").$type<PaymentStatus>().notNull(),
    count: int("count").notNull(),
    sumKopecks: int("sum_kopecks").notNull(),
  },
  (t) => [primaryKey({ columns: [t.shopId, t.day, t.method, t.status] })],
);

export const dailyRefunds = pgTable(
  "daily_refunds",
  {
    shopId: text("shop_id").notNull(),
    day: text("day").notNull(),
    count: int("count").notNull(),
    sumKopecks: int("sum_kopecks").notNull(),
  },
  (t) => [primaryKey({ columns: [t.shopId, t.day] })],
);

export const outbox = pgTable(
  "outbox",
  {
    seq: int("seq").primaryKey().generatedByDefaultAsIdentity(),
    eventId: text("event_id").notNull().unique(),
    paymentId: text("payment_id").notNull(),
    kind: text("kind").$type<"payment" | "refund">().notNull().default("payment"),
    status: text("status").$type<FinalStatus | RefundEventStatus>().notNull(),
    payload: text("payload").notNull(),
    requestId: text("request_id"),
    createdAt: int("created_at").notNull(),
    publishedAt: int("published_at"),
  },
  (t) => [index("outbox_unpublished_idx").on(t.seq).where(sql`${t.publishedAt} IS NULL`)],
);

export const schema = { payments, statusCounts, refunds, dailyStats, dailyRefunds, outbox };
