import { sql } from "drizzle-orm";
import { bothEngines, table } from "@payaccept/platform/table";
import { PAYOUT_FREQUENCIES, PAYOUT_STATUSES, type AccountDetails, type PayoutEvent } from "@payaccept/contracts";

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

/**
 * Payouts (docs/balance.md, "Payout statuses"): the amount left available when the payout was
 * made; its status moves only forward, each change one conditional UPDATE (the state machine
 * of payout-states.ts), with its event in payout_events in the same transaction.
 */
export const payouts = table(
  "payouts",
  (k) => ({
    id: k.text("id").primaryKey(),
    accountId: k.text("account_id").notNull(),
    amountKopecks: k.bigint("amount_kopecks").notNull(),
    status: k.text("status", { enum: PAYOUT_STATUSES }).notNull(),
    idempotencyKey: k.text("idempotency_key"),
    /** Made by the account's payout schedule. */
    scheduled: k.boolean("scheduled").notNull().default(false),
    createdAt: k.bigint("created_at").notNull(),
    sentAt: k.bigint("sent_at"),
    paidAt: k.bigint("paid_at"),
    failedAt: k.bigint("failed_at"),
    returnedAt: k.bigint("returned_at"),
    /** The bank's words when it refused or returned the payout. */
    failureReason: k.text("failure_reason"),
  }),
  (t, x) => [
    x.uniqueIndex("payouts_idempotency").on(t.accountId, t.idempotencyKey),
    x.index("payouts_account").on(t.accountId, t.id),
    x.index("payouts_status").on(t.status),
  ],
);

/** The payee as a payment order names them: the account's details when the order was made. */
export type Payee = AccountDetails;

/**
 * The payment order that carries a payout to the bank, made when the payout is sent: its number
 * (`seq`, shown as 1..999999 as banks take it) and Moscow date, a reference also written in its
 * purpose (a statement line or a return is matched by it), the payee as they were then, and how
 * it went (rail; the exchange file's batch; an API rail's acceptance). One per payout.
 */
export const paymentOrders = table(
  "payment_orders",
  (k) => ({
    seq: k.identity("seq"),
    payoutId: k.text("payout_id").notNull().unique().references(() => payouts, "id"),
    accountId: k.text("account_id").notNull(),
    date: k.text("date").notNull(),
    reference: k.text("reference").notNull().unique(),
    rail: k.text("rail").notNull(),
    batchId: k.text("batch_id"),
    payee: k.json("payee").$type<Payee>().notNull(),
    purpose: k.text("purpose").notNull(),
    createdAt: k.bigint("created_at").notNull(),
    /** An API rail's bank confirmed it took the order (a retry of the call is safe before and after: the bank dedups by payout id). */
    submittedAt: k.bigint("submitted_at"),
    /** The bank statement (its SHA-256) whose line showed it debited, and the one that showed it returned. */
    paidStatement: k.text("paid_statement"),
    returnedStatement: k.text("returned_statement"),
  }),
  (t, x) => [x.index("payment_orders_batch").on(t.batchId)],
);

/** An exchange file made for the operator: its orders and the file itself, kept so it can be downloaded again byte for byte. */
export const payoutBatches = table("payout_batches", (k) => ({
  id: k.text("id").primaryKey(),
  createdAt: k.bigint("created_at").notNull(),
  orders: k.integer("orders").notNull(),
  totalKopecks: k.bigint("total_kopecks").notNull(),
  /** The file's text (it is written in Windows-1251 when downloaded). */
  file: k.text("file").notNull(),
  createdBy: k.text("created_by").notNull(),
}));

/** Bank statements taken in: the SHA-256 of the file is the key, so one imported twice is recognised and changes nothing. */
export const bankStatements = table("bank_statements", (k) => ({
  sha256: k.text("sha256").primaryKey(),
  importedAt: k.bigint("imported_at").notNull(),
  account: k.text("account").notNull(),
  periodFrom: k.text("period_from").notNull(),
  periodTo: k.text("period_to").notNull(),
  report: k.json("report").$type<Record<string, unknown>>().notNull(),
  importedBy: k.text("imported_by").notNull(),
}));

/**
 * The outbox of payout events: written with each status change, published to the PAYOUTS stream
 * by the relay (payout-outbox.ts), then marked. (payout, status) is unique: a payout reaches a status once.
 */
export const payoutEvents = table(
  "payout_events",
  (k) => ({
    /** Commit order: events are published in it, so a payout's SENT reaches the stream before its PAID. */
    seq: k.identity("seq"),
    payoutId: k.text("payout_id").notNull(),
    status: k.text("status", { enum: PAYOUT_STATUSES }).notNull(),
    event: k.json("event").$type<PayoutEvent>().notNull(),
    publishedAt: k.bigint("published_at"),
  }),
  (t, x) => [x.uniqueIndex("payout_events_key").on(t.payoutId, t.status), x.index("payout_events_unpublished").on(t.seq).where(sql`${t.publishedAt} IS NULL`)],
);

/**
 * Each account's payout schedule (docs/balance.md, "Scheduled payouts"): when the next scheduled
 * payout is due (epoch ms), found by the scheduler through its index; moving it on and making the
 * payout are one transaction, so a run is made once whichever replica runs it.
 */
export const payoutSchedules = table(
  "payout_schedules",
  (k) => ({
    accountId: k.text("account_id").primaryKey(),
    frequency: k.text("frequency", { enum: PAYOUT_FREQUENCIES }).notNull(),
    /** ISO weekday of a weekly schedule (1 Monday … 7 Sunday). */
    weekday: k.integer("weekday"),
    /** Moscow time, HH:MM. */
    time: k.text("time").notNull(),
    minimumKopecks: k.bigint("minimum_kopecks").notNull(),
    nextRunAt: k.bigint("next_run_at").notNull(),
    updatedAt: k.bigint("updated_at").notNull(),
  }),
  (t, x) => [x.index("payout_schedules_due").on(t.nextRunAt)],
);

/**
 * A bank API rail's OAuth tokens (docs/balance.md, "Sber's API"): the bank rotates the refresh
 * token on every refresh, so the current one lives here, not in the environment, which only seeds
 * it (`seedSha256`: the SHA-256 of the SBER_REFRESH_TOKEN it came from; a new value there replaces
 * what is kept). One replica works the rail at a time (sends, asks, refreshes): it holds the row's
 * lease until `leaseUntil`.
 */
export const bankTokens = table("bank_tokens", (k) => ({
  rail: k.text("rail").primaryKey(),
  refreshToken: k.text("refresh_token").notNull(),
  seedSha256: k.text("seed_sha256").notNull(),
  accessToken: k.text("access_token"),
  accessExpiresAt: k.bigint("access_expires_at"),
  leaseUntil: k.bigint("lease_until"),
  updatedAt: k.bigint("updated_at").notNull(),
}));

/** The ledger's tables; schema.sqlite.ts and schema.pg.ts hand each engine its own. */
export const tables = bothEngines({ appliedEvents, frozenBuckets, accounts, refunds, refundHolds, appliedRefundEvents, payouts, paymentOrders, payoutBatches, bankStatements, payoutEvents, payoutSchedules, bankTokens });
