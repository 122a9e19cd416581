import { bigint, index, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";
import { PAYOUT_STATUSES } from "@payaccept/contracts";
import { REFUND_HOLD_STATES } from "./schema.ts";

/**
 * The ledger's tables on PostgreSQL: the same tables, keys and indexes as schema.ts (whose
 * comments say what each holds; schema-drift.test.ts keeps the two equal). Kopecks and epoch ms
 * are bigint, as SQLite's INTEGER is 64-bit.
 */
const int = (name: string) => bigint(name, { mode: "number" });

export const appliedEvents = pgTable(
  "applied_events",
  {
    paymentId: text("payment_id").notNull(),
    status: text("status").notNull(),
    accountId: text("account_id").notNull(),
    shopId: text("shop_id").notNull(),
    amountKopecks: int("amount_kopecks").notNull(),
    commissionKopecks: int("commission_kopecks").notNull(),
    netKopecks: int("net_kopecks").notNull(),
    paidAt: int("paid_at"),
    moscowDay: text("moscow_day"),
    occurredAt: int("occurred_at").notNull(),
    appliedAt: int("applied_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.paymentId, t.status] })],
);

export const frozenBuckets = pgTable(
  "frozen_buckets",
  {
    accountId: text("account_id").notNull(),
    moscowDay: text("moscow_day").notNull(),
    amountKopecks: int("amount_kopecks").notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.moscowDay] })],
);

export const accounts = pgTable("accounts", {
  accountId: text("account_id").primaryKey(),
  availableKopecks: int("available_kopecks").notNull(),
  updatedAt: int("updated_at").notNull(),
});

export const refunds = pgTable("refunds", {
  paymentId: text("payment_id").primaryKey(),
  accountId: text("account_id").notNull(),
  amountKopecks: int("amount_kopecks").notNull(),
  reservedAt: int("reserved_at"),
  refundedAt: int("refunded_at"),
});

export const refundHolds = pgTable(
  "refund_holds",
  {
    refundId: text("refund_id").primaryKey(),
    paymentId: text("payment_id").notNull(),
    accountId: text("account_id").notNull(),
    state: text("state", { enum: REFUND_HOLD_STATES }).notNull(),
    frozenDay: text("frozen_day"),
    frozenKopecks: int("frozen_kopecks").notNull(),
    availableKopecks: int("available_kopecks").notNull(),
    createdAt: int("created_at").notNull(),
    settledAt: int("settled_at"),
  },
  (t) => [index("refund_holds_payment").on(t.paymentId)],
);

export const appliedRefundEvents = pgTable("applied_refund_events", {
  refundId: text("refund_id").primaryKey(),
  status: text("status").notNull(),
  paymentId: text("payment_id").notNull(),
  accountId: text("account_id").notNull(),
  balanceKopecks: int("balance_kopecks").notNull(),
  occurredAt: int("occurred_at").notNull(),
  appliedAt: int("applied_at").notNull(),
});

export const payouts = pgTable(
  "payouts",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id").notNull(),
    amountKopecks: int("amount_kopecks").notNull(),
    status: text("status", { enum: PAYOUT_STATUSES }).notNull(),
    idempotencyKey: text("idempotency_key"),
    createdAt: int("created_at").notNull(),
    paidAt: int("paid_at"),
  },
  (t) => [
    uniqueIndex("payouts_idempotency").on(t.accountId, t.idempotencyKey),
    index("payouts_account").on(t.accountId, t.id),
    index("payouts_status").on(t.status),
  ],
);
