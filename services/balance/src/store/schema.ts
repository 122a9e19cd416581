import { bothEngines, table } from "@payaccept/platform/table";
import { PAYOUT_STATUSES } from "@payaccept/contracts";

/**
 * The money-moving payment events this ledger has applied (live SUCCESS and REFUNDED only).
 * The primary key (payment_id, status) is the consumer's idempotency guard: a redelivered or
 * republished event fails the insert and changes nothing.
 */
export const appliedEvents = table(
  "applied_events",
  (k) => ({
    paymentId: k.text("payment_id").notNull(),
    status: k.text("status").notNull(),
    accountId: k.text("account_id").notNull(),
    shopId: k.text("shop_id").notNull(),
    amountKopecks: k.bigint("amount_kopecks").notNull(),
    commissionKopecks: k.bigint("commission_kopecks").notNull(),
    /** What the event moves: amount − commission. */
    netKopecks: k.bigint("net_kopecks").notNull(),
    paidAt: k.bigint("paid_at"),
    /** Moscow date (YYYY-MM-DD) of paidAt for a receipt: the hold bucket it went into. */
    moscowDay: k.text("moscow_day"),
    occurredAt: k.bigint("occurred_at").notNull(),
    appliedAt: k.bigint("applied_at").notNull(),
  }),
  (t, x) => [x.primaryKey(t.paymentId, t.status)],
);

/**
 * Receipts still on hold, summed per (account, Moscow day of paidAt). A bucket is moved into
 * accounts.available_kopecks and deleted once its day is released, so an account has only a
 * couple of rows here however long its history is.
 */
export const frozenBuckets = table(
  "frozen_buckets",
  (k) => ({
    accountId: k.text("account_id").notNull(),
    moscowDay: k.text("moscow_day").notNull(),
    amountKopecks: k.bigint("amount_kopecks").notNull(),
  }),
  (t, x) => [x.primaryKey(t.accountId, t.moscowDay)],
);

/** Running available total: released receipts − refunds (reserved or done) − payouts. */
export const accounts = table("accounts", (k) => ({
  accountId: k.text("account_id").primaryKey(),
  availableKopecks: k.bigint("available_kopecks").notNull(),
  updatedAt: k.bigint("updated_at").notNull(),
}));

/**
 * The whole refunds made before refunds had their own ids (one per payment, taken on the REFUNDED
 * payment event). Kept as their record; nothing writes here any more: refund_holds does that job.
 */
export const refunds = table("refunds", (k) => ({
  paymentId: k.text("payment_id").primaryKey(),
  accountId: k.text("account_id").notNull(),
  amountKopecks: k.bigint("amount_kopecks").notNull(),
  reservedAt: k.bigint("reserved_at"),
  refundedAt: k.bigint("refunded_at"),
}));

export const REFUND_HOLD_STATES = ["HELD", "TAKEN", "RELEASED"] as const;

/**
 * What each refund takes from the balance, by payments' refund id (the primary key makes the
 * hold unique per refund). HELD: taken out of frozen/available when payments asked, before the
 * provider; TAKEN: the refund SUCCEEDED, the money stays out; RELEASED: the refund FAILED and
 * the money went back where it came from. A RELEASED row with nothing taken is a tombstone: a
 * hold request arriving after the refund ended (a late copy from a timed-out call) holds nothing.
 */
export const refundHolds = table(
  "refund_holds",
  (k) => ({
    refundId: k.text("refund_id").primaryKey(),
    paymentId: k.text("payment_id").notNull(),
    accountId: k.text("account_id").notNull(),
    state: k.text("state", { enum: REFUND_HOLD_STATES }).notNull(),
    /** The Moscow day of the payment's own receipt when part of the refund came out of its frozen bucket. */
    frozenDay: k.text("frozen_day"),
    frozenKopecks: k.bigint("frozen_kopecks").notNull(),
    availableKopecks: k.bigint("available_kopecks").notNull(),
    createdAt: k.bigint("created_at").notNull(),
    settledAt: k.bigint("settled_at"),
  }),
  (t, x) => [x.index("refund_holds_payment").on(t.paymentId)],
);

/**
 * The refund events (SUCCEEDED or FAILED) this ledger has applied: the primary key is the refund
 * consumer's idempotency guard, as applied_events is the payment consumer's.
 */
export const appliedRefundEvents = table("applied_refund_events", (k) => ({
  refundId: k.text("refund_id").primaryKey(),
  status: k.text("status").notNull(),
  paymentId: k.text("payment_id").notNull(),
  accountId: k.text("account_id").notNull(),
  balanceKopecks: k.bigint("balance_kopecks").notNull(),
  occurredAt: k.bigint("occurred_at").notNull(),
  appliedAt: k.bigint("applied_at").notNull(),
}));

export const payouts = table(
  "payouts",
  (k) => ({
    id: k.text("id").primaryKey(),
    accountId: k.text("account_id").notNull(),
    amountKopecks: k.bigint("amount_kopecks").notNull(),
    status: k.text("status", { enum: PAYOUT_STATUSES }).notNull(),
    idempotencyKey: k.text("idempotency_key"),
    createdAt: k.bigint("created_at").notNull(),
    paidAt: k.bigint("paid_at"),
  }),
  (t, x) => [
    x.uniqueIndex("payouts_idempotency").on(t.accountId, t.idempotencyKey),
    x.index("payouts_account").on(t.accountId, t.id),
    x.index("payouts_status").on(t.status),
  ],
);

/** The ledger's tables; schema.sqlite.ts and schema.pg.ts hand each engine its own. */
export const tables = bothEngines({ appliedEvents, frozenBuckets, accounts, refunds, refundHolds, appliedRefundEvents, payouts });
