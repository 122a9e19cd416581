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
 * The whole refunds made before refunds had their own ids (one per payment, taken on the REFUNDED
 * payment event). Kept as their record; nothing writes here any more: refund_holds does that job.
 */
export const refunds = sqliteTable("refunds", {
  paymentId: text("payment_id").primaryKey(),
  accountId: text("account_id").notNull(),
  amountKopecks: integer("amount_kopecks").notNull(),
  reservedAt: integer("reserved_at"),
  refundedAt: integer("refunded_at"),
});

export const REFUND_HOLD_STATES = ["HELD", "TAKEN", "RELEASED"] as const;

/**
 * What each refund takes from the balance, by payments' refund id (the primary key makes the
 * hold unique per refund). HELD: taken out of frozen/available when payments asked, before the
 * provider; TAKEN: the refund SUCCEEDED, the money stays out; RELEASED: the refund FAILED and
 * the money went back where it came from. A RELEASED row with nothing taken is a tombstone: a
 * hold request arriving after the refund ended (a late copy from a timed-out call) holds nothing.
 */
export const refundHolds = sqliteTable(
  "refund_holds",
  {
    refundId: text("refund_id").primaryKey(),
    paymentId: text("payment_id").notNull(),
    accountId: text("account_id").notNull(),
    state: text("state", { enum: REFUND_HOLD_STATES }).notNull(),
    /** The Moscow day of the payment's own receipt when part of the refund came out of its frozen bucket. */
    frozenDay: text("frozen_day"),
    frozenKopecks: integer("frozen_kopecks").notNull(),
    availableKopecks: integer("available_kopecks").notNull(),
    createdAt: integer("created_at").notNull(),
    settledAt: integer("settled_at"),
  },
  (t) => [index("refund_holds_payment").on(t.paymentId)],
);

/**
 * The refund events (SUCCEEDED or FAILED) this ledger has applied: the primary key is the refund
 * consumer's idempotency guard, as applied_events is the payment consumer's.
 */
export const appliedRefundEvents = sqliteTable("applied_refund_events", {
  refundId: text("refund_id").primaryKey(),
  status: text("status").notNull(),
  paymentId: text("payment_id").notNull(),
  accountId: text("account_id").notNull(),
  balanceKopecks: integer("balance_kopecks").notNull(),
  occurredAt: integer("occurred_at").notNull(),
  appliedAt: integer("applied_at").notNull(),
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
