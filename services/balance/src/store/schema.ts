import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { PAYOUT_STATUSES } from "@payaccept/contracts";

/**
 * The money-moving payment events this ledger has applied (live SUCCESS and REFUNDED only).
 * The primary key (payment_id, status) is the consumer's idempotency guard: a redelivered or
 * republished event fails the insert and changes nothing.
 */
export const appliedEvents = sqliteTable(
  "applied_events",
  {
    paymentId: text("payment_id").notNull(),
    status: text("status").notNull(),
    accountId: text("account_id").notNull(),
    shopId: text("shop_id").notNull(),
    amountKopecks: integer("amount_kopecks").notNull(),
    commissionKopecks: integer("commission_kopecks").notNull(),
    /** What the event moves: amount − commission. */
    netKopecks: integer("net_kopecks").notNull(),
    paidAt: integer("paid_at"),
    /** Moscow date (YYYY-MM-DD) of paidAt for a receipt: the hold bucket it went into. */
    moscowDay: text("moscow_day"),
    occurredAt: integer("occurred_at").notNull(),
    appliedAt: integer("applied_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.paymentId, t.status] })],
);

/**
 * Receipts still on hold, summed per (account, Moscow day of paidAt). A bucket is moved into
 * accounts.available_kopecks and deleted once its day is released, so an account has only a
 * couple of rows here however long its history is.
 */
export const frozenBuckets = sqliteTable(
  "frozen_buckets",
  {
    accountId: text("account_id").notNull(),
    moscowDay: text("moscow_day").notNull(),
    amountKopecks: integer("amount_kopecks").notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.moscowDay] })],
);

/** Running available total: released receipts − refunds (reserved or done) − payouts. */
export const accounts = sqliteTable("accounts", {
  accountId: text("account_id").primaryKey(),
  availableKopecks: integer("available_kopecks").notNull(),
  updatedAt: integer("updated_at").notNull(),
});

/**
 * One row per refunded payment: created by reserveRefund (reserved_at) or by a REFUNDED event
 * that had no reserve; refunded_at is set when the REFUNDED event is applied. Its amount is
 * already out of available. The primary key makes the reserve unique per payment.
 */
export const refunds = sqliteTable("refunds", {
  paymentId: text("payment_id").primaryKey(),
  accountId: text("account_id").notNull(),
  amountKopecks: integer("amount_kopecks").notNull(),
  reservedAt: integer("reserved_at"),
  refundedAt: integer("refunded_at"),
});

export const payouts = sqliteTable(
  "payouts",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id").notNull(),
    amountKopecks: integer("amount_kopecks").notNull(),
    status: text("status", { enum: PAYOUT_STATUSES }).notNull(),
    idempotencyKey: text("idempotency_key"),
    createdAt: integer("created_at").notNull(),
    paidAt: integer("paid_at"),
  },
  (t) => [
    uniqueIndex("payouts_idempotency").on(t.accountId, t.idempotencyKey),
    index("payouts_account").on(t.accountId, t.id),
    index("payouts_status").on(t.status),
  ],
);
