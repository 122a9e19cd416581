import { sql } from "drizzle-orm";
import { bothEngines, table } from "@payaccept/platform/table";
import type {
  AnyReasonParams,
  ConnectorId,
  PaymentEventStatus,
  PaymentMethod,
  PaymentMethodDetails,
  PaymentStatus,
  ProviderCardDescription,
  Reason,
  ReceiptData,
  RefundEventStatus,
  RefundStatus,
  RevokedBy,
  SavedMethodStatus,
} from "@payaccept/contracts";
import type { TraceCarrier } from "@payaccept/platform";

/** Times are epoch milliseconds; money is integer kopecks. */
export const payments = table(
  "payments",
  (k) => ({
    id: k.text("id").primaryKey(),
    shopId: k.text("shop_id").notNull(),
    accountId: k.text("account_id").notNull(),
    /**
     * 1, 2, 3… per shop in insert order, without gaps (rows are never deleted and a failed insert
     * rolls back its number). createdAt is non-decreasing along it, so a page of the list is a
     * range of seq and a count is a subtraction.
     */
    seq: k.bigint("seq").notNull(),
    orderId: k.text("order_id").notNull(),
    status: k.text("status").$type<PaymentStatus>().notNull(),
    amountKopecks: k.bigint("amount_kopecks").notNull(),
    commissionKopecks: k.bigint("commission_kopecks").notNull(),
    description: k.text("description"),
    email: k.text("email"),
    /** Fixed by the merchant at creation, or chosen by the buyer on start. */
    method: k.text("method").$type<PaymentMethod>(),
    /** The merchant fixed the method at creation: the buyer cannot switch to another one. */
    methodFixed: k.boolean("method_fixed").notNull().default(false),
    telegramId: k.text("telegram_id"),
    metadata: k.json("metadata").$type<Record<string, unknown>>(),
    successUrl: k.text("success_url"),
    failUrl: k.text("fail_url"),
    isTest: k.boolean("is_test").notNull(),
    paidAt: k.bigint("paid_at"),
    createdAt: k.bigint("created_at").notNull(),
    updatedAt: k.bigint("updated_at").notNull(),
    /** When the timer sweeper moves it to EXPIRED; null once nothing is pending. */
    expiresAt: k.bigint("expires_at"),
    providerSessionId: k.text("provider_session_id"),
    /**
     * The connector (acquirer) the session was opened at, or the charge sent to (docs/connectors.md):
     * every later call for the payment goes there. Null before the first session, and on rows made
     * before connectors existed, which were all the emulator's.
     */
    connector: k.text("connector").$type<ConnectorId>(),
    sbpQrPayload: k.text("sbp_qr_payload"),
    sbpDeepLink: k.text("sbp_deep_link"),
    cardFormAction: k.text("card_form_action"),
    /** Sum of the SUCCEEDED refunds. */
    refundedKopecks: k.bigint("refunded_kopecks").notNull().default(0),
    /**
     * Sum of the PENDING refunds: promised to buyers, not yet confirmed by the provider. The guard
     * payments_refunds_within_amount (below) makes the database itself refuse refunded + refunding
     * above the amount, whatever interleaving of requests, sweepers and replicas.
     */
    refundingKopecks: k.bigint("refunding_kopecks").notNull().default(0),
    /** The fiscal receipt with the shop's defaults applied (docs/receipts.md); carried in the payment's events. */
    receipt: k.json("receipt").$type<ReceiptData>(),
    /**
     * The call id (platform's CALL_ID_HEADER) of the create that made it: a copy of that call
     * (a hedged request) is answered with this payment instead of ORDER_ID_TAKEN.
     */
    createCallId: k.text("create_call_id"),
    // ── saved methods, charges and holds (docs/payments.md, issue 18) ──
    /** The merchant's reference for the buyer (create's customerId); a method this payment saves is filed under it. */
    customerId: k.text("customer_id"),
    /** The merchant asked to save the method (create's savePaymentMethod). */
    saveMethod: k.boolean("save_method").notNull().default(false),
    /** The buyer's answer on the payment page (start); null until asked. */
    saveConsent: k.boolean("save_consent"),
    /** Two stages (create's capture: false): the card is held, then captured or voided. */
    hold: k.boolean("hold").notNull().default(false),
    /** A hold's amount as asked; amount_kopecks becomes the captured amount. */
    heldKopecks: k.bigint("held_kopecks"),
    /** The lines a partial capture asked for, kept before the acquirer is asked, for a capture committed by its callback. */
    captureReceipt: k.json("capture_receipt").$type<ReceiptData>(),
    /** The saved method this payment saved, or charged (saved_methods.id), and what it shows of it. */
    savedMethodId: k.text("saved_method_id"),
    paymentMethod: k.json("payment_method").$type<PaymentMethodDetails>(),
    /** Charged by the shop with a saved method, without the buyer. */
    merchantInitiated: k.boolean("merchant_initiated").notNull().default(false),
    /** A PENDING live charge: when the charge sweeper may drive it (its driver's lease); null otherwise. */
    chargeRetryAt: k.bigint("charge_retry_at"),
    /** Why a merchant-initiated payment FAILED: a reason of the catalogue and its parameters, never text. */
    failureCode: k.text("failure_code").$type<Reason>(),
    failureParams: k.json("failure_params").$type<AnyReasonParams>(),
    /** A charge the bank wants the buyer to confirm: where, and until when (epoch ms). */
    authentication: k.json("authentication").$type<{ url: string; expiresAt: number }>(),
    /**
     * The trace context (W3C traceparent) of the create: the payment's later work, in traces of its
     * own (the buyer's page, the bank's callback), links to it, and an event a timer writes continues it.
     */
    traceContext: k.json("trace_context").$type<TraceCarrier>(),
  }),
  (t, x) => [
    x.uniqueIndex("payments_shop_order_uq").on(t.shopId, t.orderId),
    x.uniqueIndex("payments_shop_seq_uq").on(t.shopId, t.seq),
    // Time bounds → seq bounds (covering), and the export keyset on (createdAt, id).
    x.index("payments_shop_created_idx").on(t.shopId, t.createdAt, t.id, t.seq),
    // Status-filtered pages walk this in seq order without touching rows.
    x.index("payments_shop_status_seq_idx").on(t.shopId, t.status, t.seq),
    // The dashboard's sort by amount, both directions; status and seq ride along so a page is an index walk.
    x.index("payments_shop_amount_idx").on(t.shopId, t.amountKopecks, t.seq, t.status),
    x.index("payments_expires_idx").on(t.expiresAt).where(sql`${t.expiresAt} IS NOT NULL`),
    x.index("payments_charge_retry_idx").on(t.chargeRetryAt).where(sql`${t.chargeRetryAt} IS NOT NULL`),
    // The reconciliation's candidates (docs/connectors.md): payments still waiting on an acquirer, oldest change first.
    x.index("payments_reconcile_idx").on(t.updatedAt).where(sql`${t.status} IN ('PENDING', 'AUTHORIZED')`),
  ],
  // refunded + refunding never above the amount. SQLite keeps it with a trigger, because a CHECK
  // added to an existing SQLite table rebuilds the table (drizzle/0002_refund_guard.sql);
  // PostgreSQL with the CHECK of the same name.
  {
    sqlite: { triggers: ["payments_refunds_within_amount"] },
    pg: {
      extras: (t, x) => [
        x.check(
          "payments_refunds_within_amount",
          sql`${t.refundedKopecks} >= 0 AND ${t.refundingKopecks} >= 0 AND ${t.refundedKopecks} + ${t.refundingKopecks} <= ${t.amountKopecks}`,
        ),
      ],
    },
  },
);

/** Payments per (shop, status), changed in the same transaction as every insert and transition. */
export const statusCounts = table(
  "status_counts",
  (k) => ({
    shopId: k.text("shop_id").notNull(),
    status: k.text("status").$type<PaymentStatus>().notNull(),
    count: k.bigint("count").notNull(),
  }),
  (t, x) => [x.primaryKey(t.shopId, t.status)],
);

/**
 * Refunds of a payment. A PENDING one has its amount in payments.refunding_kopecks and is driven to
 * SUCCEEDED or FAILED by the request that made it or, from retry_at on, by the refund sweeper.
 */
export const refunds = table(
  "refunds",
  (k) => ({
    id: k.text("id").primaryKey(),
    paymentId: k.text("payment_id").notNull().references(() => payments, "id"),
    shopId: k.text("shop_id").notNull(),
    amountKopecks: k.bigint("amount_kopecks").notNull(),
    /** What the refund takes from the merchant's balance: its share of amount − commission (domain/refund-rules.ts). */
    balanceKopecks: k.bigint("balance_kopecks").notNull(),
    reason: k.text("reason"),
    status: k.text("status").$type<RefundStatus>().notNull(),
    /** Why a FAILED refund failed: a reason of the catalogue (contracts reasons.ts) and its parameters, never text. */
    failureCode: k.text("failure_code").$type<Reason>(),
    failureParams: k.json("failure_params").$type<AnyReasonParams>(),
    idempotencyKey: k.text("idempotency_key"),
    createdAt: k.bigint("created_at").notNull(),
    completedAt: k.bigint("completed_at"),
    /** When a PENDING refund may next be driven by the sweeper; null once it has ended. */
    retryAt: k.bigint("retry_at"),
  }),
  (t, x) => [
    // A repeated key returns the first refund; NULL keys never collide.
    x.uniqueIndex("refunds_payment_key_uq").on(t.paymentId, t.idempotencyKey),
    x.index("refunds_payment_idx").on(t.paymentId, t.id),
    x.index("refunds_retry_idx").on(t.retryAt).where(sql`${t.retryAt} IS NOT NULL`),
    x.check("refunds_amount_positive", sql`${t.amountKopecks} > 0 AND ${t.balanceKopecks} >= 0`),
  ],
);

/**
 * The dashboard overview's daily rollup: payments created on a Moscow day, by method ("" while the
 * buyer has not chosen one) and current status, with their count and amount. Changed in the same
 * transaction as every insert and transition, so a month is at most days × methods × statuses rows
 * per shop, whatever the number of payments.
 */
export const dailyStats = table(
  "daily_stats",
  (k) => ({
    shopId: k.text("shop_id").notNull(),
    /** YYYY-MM-DD in Moscow time (UTC+3) of the payment's createdAt. */
    day: k.text("day").notNull(),
    method: k.text("method").notNull(),
    status: k.text("status").$type<PaymentStatus>().notNull(),
    count: k.bigint("count").notNull(),
    sumKopecks: k.bigint("sum_kopecks").notNull(),
  }),
  (t, x) => [x.primaryKey(t.shopId, t.day, t.method, t.status)],
);

/**
 * The overview's refunds: SUCCEEDED refunds per shop and Moscow day of their completion, with
 * their count and amount; changed in the transaction that ends each refund.
 */
export const dailyRefunds = table(
  "daily_refunds",
  (k) => ({
    shopId: k.text("shop_id").notNull(),
    day: k.text("day").notNull(),
    count: k.bigint("count").notNull(),
    sumKopecks: k.bigint("sum_kopecks").notNull(),
  }),
  (t, x) => [x.primaryKey(t.shopId, t.day)],
);

/** Events committed with their transition, published to JetStream by the relay. */
export const outbox = table(
  "outbox",
  (k) => ({
    seq: k.identity("seq"),
    /** The Nats-Msg-Id: paymentEventId(paymentId, status), one per (payment, status), or refundEventId(refundId). */
    eventId: k.text("event_id").notNull().unique(),
    /** The payment the event is about, refund events included: a payment's events are published in commit order. */
    paymentId: k.text("payment_id").notNull(),
    /** payment: a PaymentEvent (status = the payment's); refund: a RefundEvent (status = the refund's). */
    kind: k.text("kind").$type<"payment" | "refund">().notNull().default("payment"),
    status: k.text("status").$type<PaymentEventStatus | RefundEventStatus>().notNull(),
    payload: k.text("payload").notNull(),
    /** The X-Request-Id of the API request that caused the event, when one did: support follows a request to its event. */
    requestId: k.text("request_id"),
    /** The trace context (W3C traceparent) of the work that wrote the event: the relay's publish continues its trace. */
    traceContext: k.json("trace_context").$type<TraceCarrier>(),
    createdAt: k.bigint("created_at").notNull(),
    publishedAt: k.bigint("published_at"),
  }),
  (t, x) => [x.index("outbox_unpublished_idx").on(t.seq).where(sql`${t.publishedAt} IS NULL`)],
);

/**
 * Cards and SBP accounts buyers agreed to save at a payment (docs/payments.md, "Saved methods").
 * `provider_method_id` is the acquirer's token (null for a sandbox method); a method's end
 * (REVOKED, EXPIRED) is final and commits with its event, under the payment that saved it.
 */
export const savedMethods = table(
  "saved_methods",
  (k) => ({
    id: k.text("id").primaryKey(),
    shopId: k.text("shop_id").notNull(),
    accountId: k.text("account_id").notNull(),
    customerId: k.text("customer_id"),
    /** The payment that saved it: one method per payment. */
    paymentId: k.text("payment_id").notNull().unique(),
    providerMethodId: k.text("provider_method_id").unique(),
    /** The connector whose token providerMethodId is: its charges go there (null: the emulator's, from before connectors). */
    connector: k.text("connector").$type<ConnectorId>(),
    method: k.text("method").$type<PaymentMethod>().notNull(),
    status: k.text("status").$type<SavedMethodStatus>().notNull(),
    card: k.json("card").$type<ProviderCardDescription>(),
    sbp: k.json("sbp").$type<{ bankName: string }>(),
    isTest: k.boolean("is_test").notNull(),
    /** An ACTIVE card: the first instant after its expiry month (UTC), when the method sweeper ends it; null otherwise. */
    expiresAt: k.bigint("expires_at"),
    createdAt: k.bigint("created_at").notNull(),
    deactivatedAt: k.bigint("deactivated_at"),
    revokedBy: k.text("revoked_by").$type<RevokedBy>(),
  }),
  (t, x) => [
    // A shop's list, newest first (ids are UUIDv7), whole or one customer's.
    x.index("saved_methods_shop_idx").on(t.shopId, t.id),
    x.index("saved_methods_customer_idx").on(t.shopId, t.customerId, t.id),
    x.index("saved_methods_expires_idx").on(t.expiresAt).where(sql`${t.expiresAt} IS NOT NULL`),
  ],
);

/**
 * The Idempotency-Keys of the API's plain creates, kept with the payment in the transaction that
 * inserts it (docs/gateway.md, "Idempotency keys"; issue 21): the request's fingerprint and the
 * answer replayed byte for byte. A key the gateway keeps in its KV bucket (another route, a
 * charge) has a row without an answer, so that the same key on a create is a 422 here.
 */
export const idempotencyKeys = table(
  "idempotency_keys",
  (k) => ({
    shopId: k.text("shop_id").notNull(),
    key: k.text("key").notNull(),
    /** sha256 of method, path and canonical body, as the gateway computes it. */
    fingerprint: k.text("fingerprint").notNull(),
    /** The answer's HTTP status and body; null for a key kept by the gateway's bucket. */
    status: k.integer("status"),
    body: k.text("body"),
    /** The call that wrote the row: a copy of that call (hedging) is answered as the first, not as a replay. */
    callId: k.text("call_id"),
    /** The row counts as absent IDEMPOTENCY_TTL_MS after this (and is swept). */
    createdAt: k.bigint("created_at").notNull(),
  }),
  (t, x) => [x.primaryKey(t.shopId, t.key), x.index("idempotency_keys_created_idx").on(t.createdAt)],
);

/** payments' tables; schema.sqlite.ts and schema.pg.ts hand each engine its own. */
export const tables = bothEngines({ payments, statusCounts, refunds, dailyStats, dailyRefunds, outbox, savedMethods, idempotencyKeys });
