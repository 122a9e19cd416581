import { z } from "zod";
import {
  Balance,
  CapturePaymentRequest,
  CreatePaymentRequest,
  CreateRefundRequest,
  ListPaymentsQuery,
  Payment,
  PaymentListPage,
  Payout,
  PayoutList,
  PayoutSchedule,
  PayoutScheduleView,
  Refund,
  RefundList,
  SandboxOutcome,
  SandboxOutcomeRequest,
  TestWebhookResult,
  WebhookDelivery,
} from "./api.ts";
import { PaymentMethodList, SavedPaymentMethod, SaveMethodConsent } from "./payment-methods.ts";
import { FinalStatus, IsoDateTime, PaymentMethod, PaymentStatus, PayoutStatus, Uuid } from "./primitives.ts";
import { AccountDetailsView, MAX_KEY_OVERLAP_MS, MAX_SECRET_OVERLAP_MS, ShopDetail, ShopView, ShopWithKey, Tariff } from "./directory.ts";
import { AccountDetailsInput, PayoutAccountInput } from "./bank-details.ts";
import { AuditCursor, AuditEvent, AuditFilter } from "./audit.ts";
import { FailedReceipt, Receipt, ReceiptList, ReceiptSummary, ShopReceiptSettings } from "./receipts.ts";
import { ReasonCode, ReasonParams } from "./reasons.ts";
import { PaymentCredit, PaymentEventStatus } from "./events.ts";
import { PayoutBatch, PayoutExport, StatementReport } from "./payout-rails.ts";
import { IdempotencyKey } from "./idempotency.ts";
import { ConnectorHealth, ReconcileReport, ReconcileRequest, ShopConnectors } from "./connectors.ts";
import { BackupRequest, StoreCopy, type BackedUpService } from "./backup.ts";

/**
 * A request/reply operation on the bus: one subject, one request schema, one reply schema.
 * Served with a queue group named after the owning service so replicas share the load.
 * Replies are RpcReply<T> envelopes (errors.ts).
 */
export interface Rpc<Req extends z.ZodType, Res extends z.ZodType> {
  subject: string;
  request: Req;
  response: Res;
  /**
   * Handling two copies of one call has the effect of handling one: a read, or a write that
   * recognises a copy by the call's id (platform's repeatKey) or by a key of its own. The caller
   * may then send a copy while the first one goes unanswered (docs/nats.md, "A hung node and
   * copies of a call"): a request that fell into a hung NATS node is answered by another replica.
   */
  idempotent: boolean;
  /** Changes nothing (read()): its owner logs a success at debug, the API's access line being the request's record. */
  readOnly?: true;
}
const rpc = <Req extends z.ZodType, Res extends z.ZodType>(subject: string, request: Req, response: Res, opts: { idempotent?: true } = {}): Rpc<Req, Res> => ({
  subject,
  request,
  response,
  idempotent: opts.idempotent ?? false,
});
/** rpc() for a read: nothing changes, so a copy is always harmless. */
const read = <Req extends z.ZodType, Res extends z.ZodType>(subject: string, request: Req, response: Res): Rpc<Req, Res> => ({
  ...rpc(subject, request, response, { idempotent: true }),
  readOnly: true,
});
export type RpcRequest<R> = R extends Rpc<infer Q, z.ZodType> ? z.input<Q> : never;
export type RpcResponse<R> = R extends Rpc<z.ZodType, infer S> ? z.output<S> : never;

const ShopScoped = z.object({ shopId: z.string() });
/** The shops one overview covers: one shop, or every shop of the account (the dashboard lists them). */
const ShopSet = z.object({ shopIds: z.array(z.string()).min(1).max(500) });
/** A Moscow calendar day, YYYY-MM-DD. */
export const MoscowDay = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, { message: "must be a date YYYY-MM-DD" });
const Credentials = z.object({ email: z.string(), password: z.string() });
const ById = ShopScoped.extend({ id: Uuid });

// ── buyer-side (paypage) views ──────────────────────────────────────────────
export const CheckoutView = z.object({
  payment: Payment,
  shopName: z.string(),
  methods: z.array(PaymentMethod),
  sandbox: z.boolean(),
  /**
   * Whether the shop takes payments now (an operator may have deactivated it): a CREATED payment
   * of a shop that does not cannot be started, and its page says so instead of offering methods.
   * Absent from an older payments service: taken as accepting, as before.
   */
  accepting: z.boolean().default(true),
  /** Effective return links (payment-level, else shop-level). */
  successUrl: z.string().nullable(),
  failUrl: z.string().nullable(),
  /** When PENDING: the moment it expires (ISO). */
  expiresAt: z.string().nullable(),
  /** Provider session once paying has started. */
  sbp: z.object({ qrPayload: z.string(), deepLink: z.string() }).nullable(),
  /**
   * `hosted`: formAction is the acquirer's own payment page, where the buyer goes to enter the card
   * (T-Bank's PaymentURL); otherwise our page's card form posts to it. Absent from an older payments: false.
   */
  card: z.object({ formAction: z.string(), sessionId: z.string(), hosted: z.boolean().default(false) }).nullable(),
  /** Where the fiscal receipt goes, masked (the page is open to whoever has the link), or null without a receipt. */
  receiptTo: z.string().nullable().optional(),
  /**
   * The merchant asked to save the method (savePaymentMethod): how the page asks the buyer's
   * consent (the shop's setting); the buyer's answer goes with `start`. Null otherwise.
   */
  saveMethod: z.object({ consent: SaveMethodConsent }).nullable().default(null),
  /**
   * A merchant-initiated charge the bank wants the buyer to confirm (FAILED with
   * AUTHENTICATION_REQUIRED): the bank's page where the buyer does it, until expiresAt. Null otherwise.
   */
  authentication: z.object({ url: z.string(), expiresAt: IsoDateTime }).nullable().default(null),
});
export type CheckoutView = z.infer<typeof CheckoutView>;


// ── dashboard overview and payments list ────────────────────────────────────
/** One cell of the daily rollup: payments created on `day` (Moscow) now in `status`, by method. */
export const DailyStatsRow = z.object({
  day: MoscowDay,
  method: PaymentMethod.nullable(),
  status: PaymentStatus,
  count: z.number().int(),
  sumKopecks: z.number().int(),
});
export type DailyStatsRow = z.infer<typeof DailyStatsRow>;

/** SUCCEEDED refunds (partial or full) completed on `day` (Moscow). */
export const DailyRefundsRow = z.object({ day: MoscowDay, count: z.number().int(), sumKopecks: z.number().int() });
export type DailyRefundsRow = z.infer<typeof DailyRefundsRow>;

export const PAYMENT_SORTS = ["created_desc", "created_asc", "amount_desc", "amount_asc"] as const;
export const PaymentSort = z.enum(PAYMENT_SORTS);
export type PaymentSort = z.infer<typeof PaymentSort>;

/** The dashboard's list: Moscow days, statuses, an order; totals of the whole filtered set. */
export const BrowsePaymentsRequest = ShopScoped.extend({
  fromDay: MoscowDay.optional(),
  toDay: MoscowDay.optional(),
  status: z.array(PaymentStatus).optional(),
  sort: PaymentSort.default("created_desc"),
  page: z.number().int().min(1).max(10_000).default(1),
  limit: z.number().int().min(1).max(100).default(50),
});
/** Payments of one status in a filtered set: how many, for how much. */
export const StatusTotal = z.object({ status: PaymentStatus, count: z.number().int(), sumKopecks: z.number().int() });
export type StatusTotal = z.infer<typeof StatusTotal>;
export const BrowsePaymentsPage = z.object({
  items: z.array(Payment),
  total: z.number().int(),
  /** The whole filtered set per status (statuses without payments left out): a page says what was paid, not a sum of everything. */
  byStatus: z.array(StatusTotal),
});

/** Webhook health of one shop over a period (deliveries whose event occurred in it), as they stand now. */
export const DeliveryHealth = z.object({
  shopId: z.string(),
  /** Events with a webhook URL to go to: delivered, failed, retrying or not tried yet (unsent ones apart). */
  total: z.number().int(),
  /** Events whose first attempt (attempt 1 of series 1) was sent to a URL; a resend or replay never changes it. */
  firstSent: z.number().int(),
  /** Of those, delivered by that first attempt. */
  firstAttempt: z.number().int(),
  delivered: z.number().int(),
  /** Not sent: the shop had no webhook URL at the last attempt. Not a failure: there is no endpoint to fail. */
  unsent: z.number().int(),
  /** Exhausted or blocked: the merchant never got these without a resend. */
  failed: z.number().int(),
  /** Still being retried after at least one failed attempt. */
  retrying: z.number().int(),
  /** The endpoint's latest error: English, and as a reason with its parameters for the pages. */
  lastError: z.string().nullable(),
  lastErrorCode: ReasonCode.nullable(),
  lastErrorParams: ReasonParams.nullable(),
});
export type DeliveryHealth = z.infer<typeof DeliveryHealth>;

/**
 * What the delivery log can be narrowed to: the event a delivery is for (a payment's status, or a
 * saved method's end), failing = exhausted, blocked, or pending after an error.
 */
export const DeliveryLogFilter = z.object({
  status: PaymentEventStatus.optional(),
  failedOnly: z.boolean().optional(),
  orderId: z.string().max(64).optional(),
});

const ShopCreated = z.object({
  accountId: z.string(),
  shopId: z.string(),
  apiKey: z.string(),
  signingSecret: z.string(),
});

/** An Idempotency-Key and the fingerprint (sha256 hex of method, path and canonical body) of the request it came with. */
const KeyedRequest = z.object({ key: IdempotencyKey, fingerprint: z.string().regex(/^[0-9a-f]{64}$/) });
/** The HTTP answer of a keyed create as the merchant receives it: status, body bytes, and whether it is a replay. */
export const KeyedAnswer = z.object({ status: z.number().int(), body: z.string(), replayed: z.boolean() });
export type KeyedAnswer = z.infer<typeof KeyedAnswer>;

export const rpcs = {
  payments: {
    /** A copy of the same call (its call id) gets the payment the first one made, not ORDER_ID_TAKEN. */
    create: rpc("payments.v1.create", ShopScoped.extend({ request: CreatePaymentRequest }), Payment, { idempotent: true }),
    /**
     * A create under an Idempotency-Key whose record payments keeps in the payment's own
     * transaction (docs/gateway.md, "Idempotency keys"): the answer, replayed when the key already
     * has one (a copy of the same call is answered as the first); IDEMPOTENCY_KEY_REUSED for a key
     * first used with another fingerprint. A refusal (4xx) is stored as the key's answer and thrown.
     */
    createKeyed: rpc("payments.v1.create-keyed", ShopScoped.extend({ request: CreatePaymentRequest, idempotency: KeyedRequest }), KeyedAnswer, { idempotent: true }),
    /**
     * A key the gateway keeps in its own bucket (another route, a charge) is marked here with its
     * fingerprint, so that the same key on a create is a 422 and a create's key on another route
     * too: IDEMPOTENCY_KEY_REUSED when the key was first used with another fingerprint.
     */
    noteKey: rpc("payments.v1.note-key", ShopScoped.extend({ idempotency: KeyedRequest }), z.object({ noted: z.literal(true) }), { idempotent: true }),
    get: read("payments.v1.get", ById, Payment),
    lookup: read("payments.v1.lookup", ShopScoped.extend({ orderId: z.string() }), Payment),
    list: read("payments.v1.list", ShopScoped.extend({ query: ListPaymentsQuery }), PaymentListPage),
    /** Spec §4.4: a repeat returns the canceled payment again. */
    cancel: rpc("payments.v1.cancel", ById, Payment, { idempotent: true }),
    /**
     * A full or partial refund of a SUCCESS payment (API, dashboard, admin CLI); amountKopecks
     * defaults to what is not yet refunded. The same idempotencyKey for the same payment returns
     * the first refund. CONFLICT when the payment is not SUCCESS, the amount exceeds the remainder
     * or the balance cannot cover it; a refund the acquirer declines is returned FAILED.
     */
    refund: rpc(
      "payments.v1.refund",
      ById.extend(CreateRefundRequest.shape).extend({ idempotencyKey: z.string().min(1).max(128).optional() }),
      Refund,
      // Without a key, the call's own id is the key (repeatKey).
      { idempotent: true },
    ),
    /** The payment's refunds, oldest first. */
    listRefunds: read("payments.v1.refund.list", ById, RefundList),
    /**
     * Operators only (admin CLI): which shop and account a payment belongs to, so shop-scoped
     * commands such as refund can be given just a payment id. Never exposed to merchants or buyers.
     */
    owner: read("payments.v1.owner", z.object({ id: Uuid }), z.object({ id: Uuid, shopId: z.string(), accountId: z.string() })),
    /** Buyer side: what the payment page shows. No shop scope: the payment id is the capability. */
    checkout: read("payments.v1.checkout.get", z.object({ id: Uuid }), CheckoutView),
    /** `saveMethod`: the buyer agreed on the page to save the method (asked only when the payment wants it saved). */
    start: rpc("payments.v1.checkout.start", z.object({ id: Uuid, method: PaymentMethod, saveMethod: z.boolean().optional() }), CheckoutView),
    sandboxOutcome: rpc(
      "payments.v1.checkout.sandbox",
      z.object({ id: Uuid, outcome: SandboxOutcome }),
      CheckoutView,
    ),
    /**
     * Takes all of an AUTHORIZED payment's hold or part of it (the rest is released) → SUCCESS with
     * the captured amount. A copy or a repeat with the same amount (or none) answers the captured
     * payment again: the acquirer captures once.
     */
    capture: rpc("payments.v1.capture", ById.extend(CapturePaymentRequest.shape), Payment, { idempotent: true }),
    /**
     * A sandbox payment, charge or hold completed from code as a buyer or a bank would, with the
     * same events; CONFLICT for a live payment or an outcome that does not apply to its status.
     */
    sandboxComplete: rpc("payments.v1.sandbox.complete", ById.extend({ request: SandboxOutcomeRequest }), Payment, { idempotent: true }),
    /** One saved method of the shop; NOT_FOUND for another shop's. */
    getMethod: read("payments.v1.method.get", ById, SavedPaymentMethod),
    /** The shop's saved methods, newest first, optionally one customer's. */
    listMethods: read(
      "payments.v1.method.list",
      ShopScoped.extend({ query: z.object({ customerId: z.string().optional(), limit: z.number().int().min(1).max(100), startingAfter: z.string().optional() }) }),
      PaymentMethodList,
    ),
    /** Revokes a saved method at the acquirer and here: every later charge with it is refused. Idempotent. */
    revokeMethod: rpc("payments.v1.method.revoke", ById, SavedPaymentMethod, { idempotent: true }),
    /** Dashboard CSV export: the next keyset page (after {createdAt, id}) of a period, oldest first, streamed page by page. */
    /**
     * Dashboard overview: the daily rollups of the shops over Moscow days [fromDay, toDay], summed
     * over the shops: payments by day of creation, method and status (kept with every insert and
     * status change), and SUCCEEDED refunds by day of completion (kept as each refund ends).
     */
    stats: read(
      "payments.v1.stats",
      ShopSet.extend({ fromDay: MoscowDay, toDay: MoscowDay }),
      z.object({ rows: z.array(DailyStatsRow), refunds: z.array(DailyRefundsRow) }),
    ),
    /** Dashboard payment page: when the payment reached each final status (paid, refunded…), oldest first. */
    history: read(
      "payments.v1.history",
      ById,
      z.object({ items: z.array(z.object({ status: FinalStatus, at: IsoDateTime })) }),
    ),
    /** Dashboard list: sorted pages (newest first by default) and the count and sum of the filtered set per status. */
    browse: read("payments.v1.browse", BrowsePaymentsRequest, BrowsePaymentsPage),
    /**
     * The connectors (acquirers) as the answering payments process sees them: configured or not,
     * the default, each one's circuit and recent calls (docs/connectors.md, "Health").
     */
    connectors: read("payments.v1.connectors", z.object({}), z.object({ connectors: z.array(ConnectorHealth) })),
    /**
     * A reconciliation with the acquirers now (docs/connectors.md, "Reconciliation"): what is
     * pending or uncertain past olderThanMs (default: the service's RECONCILE_AFTER) looked up, the
     * acquirer's decisions applied, the rest reported. Only reads at the acquirers and applies
     * results once: a copy of the call finds nothing more to apply.
     */
    reconcile: rpc("payments.v1.reconcile", ReconcileRequest, ReconcileReport, { idempotent: true }),
    exportPage: read(
      "payments.v1.export",
      ShopScoped.extend({
        from: z.string().optional(),
        to: z.string().optional(),
        status: z.array(PaymentStatus).optional(),
        after: z.object({ createdAt: z.string(), id: z.string() }).optional(),
        limit: z.number().int().min(1).max(1000),
      }),
      z.object({ items: z.array(Payment) }),
    ),
  },
  directory: {
    createShop: rpc(
      "directory.v1.shop.create",
      z.object({
        name: z.string().min(1).max(100),
        sandbox: z.boolean().default(false),
        webhookUrl: z.string().nullable().optional(),
        methods: z.array(PaymentMethod).min(1).optional(),
        accountId: z.string().optional(),
      }),
      ShopCreated,
    ),
    setActive: rpc("directory.v1.shop.set-active", ShopScoped.extend({ active: z.boolean() }), ShopView),
    /**
     * A new key. The keys it replaces keep working for overlapMs more (0: they stop now; at most
     * 7 days), then 401 on every gateway at that instant (docs/directory.md, "Rolling a key").
     */
    rotateKey: rpc(
      "directory.v1.key.rotate",
      ShopScoped.extend({ overlapMs: z.number().int().min(0).max(MAX_KEY_OVERLAP_MS).default(0) }),
      z.object({ shopId: z.string(), apiKey: z.string(), previousKeyExpiresAt: IsoDateTime.nullable().optional() }),
    ),
    /** Ends the overlap of the shop's retiring keys now (one of them with keyId); a repeat ends nothing more. */
    endKeyOverlap: rpc(
      "directory.v1.key.end-overlap",
      ShopScoped.extend({ keyId: z.string().optional() }),
      z.object({ shopId: z.string(), ended: z.number().int() }),
      { idempotent: true },
    ),
    updateShop: rpc(
      "directory.v1.shop.update",
      ShopScoped.extend({
        name: z.string().min(1).max(100).optional(),
        webhookUrl: z.string().nullable().optional(),
        methods: z.array(PaymentMethod).min(1).optional(),
        tariff: Tariff.optional(),
        successUrl: z.string().nullable().optional(),
        failUrl: z.string().nullable().optional(),
        receipts: ShopReceiptSettings.optional(),
        savedMethodConsent: SaveMethodConsent.optional(),
        /** Operators only (the admin CLI, the dashboard's operator pages): the shop's acquirers per method; null clears. */
        connectors: ShopConnectors.nullable().optional(),
      }),
      ShopView,
    ),
    /**
     * A new signing secret. The one it replaces keeps signing every webhook beside it for
     * overlapMs more (0: it stops now; at most 24 h; docs/webhooks.md, "Rotating the signing secret").
     */
    rotateSecret: rpc(
      "directory.v1.secret.rotate",
      ShopScoped.extend({ overlapMs: z.number().int().min(0).max(MAX_SECRET_OVERLAP_MS).default(0) }),
      z.object({ shopId: z.string(), signingSecret: z.string(), previousValidUntil: IsoDateTime.nullable().optional() }),
    ),
    /** Stops signing with the retiring secret now; a repeat ends nothing more. */
    endSecretOverlap: rpc("directory.v1.secret.end-overlap", ShopScoped, z.object({ shopId: z.string(), ended: z.boolean() }), { idempotent: true }),
    /** One shop with its live key's hint; the signing secret only with withSecret. NOT_FOUND when unknown. */
    getShop: read("directory.v1.shop.get", ShopScoped.extend({ withSecret: z.boolean().default(false) }), ShopWithKey),
    /** The account's shops, oldest first, each with its live key's hint (none carries its secret). */
    listShops: read("directory.v1.shop.list", z.object({ accountId: z.string() }), z.object({ items: z.array(ShopWithKey) })),
    /** Every shop, oldest first, a page at a time (operators' list). */
    browseShops: read(
      "directory.v1.shop.browse",
      z.object({ offset: z.number().int().min(0), limit: z.number().int().min(1).max(500) }),
      z.object({ items: z.array(ShopDetail), total: z.number().int() }),
    ),
    /** A new account with no shop yet (a merchant signing up in the dashboard). */
    createAccount: rpc("directory.v1.account.create", z.object({}), z.object({ accountId: z.string(), createdAt: z.number().int() })),
    /** NOT_FOUND when the account does not exist. */
    getAccount: read("directory.v1.account.get", z.object({ accountId: z.string() }), z.object({ accountId: z.string(), createdAt: z.number().int() })),
    /** The account's legal and bank details (details null before they are entered). NOT_FOUND for an unknown account. */
    getAccountDetails: read("directory.v1.account.details.get", z.object({ accountId: z.string() }), AccountDetailsView),
    /** The details of several accounts at once (the balance's payout rails); accounts without details are left out. */
    detailsOfAccounts: read("directory.v1.account.details.many", z.object({ accountIds: z.array(z.string()).min(1).max(500) }), z.object({ items: z.array(AccountDetailsView) })),
    /**
     * Enters or replaces the account's details (VALIDATION_FAILED names every problem at its
     * field). A new payout account holds payouts for PAYOUT_ACCOUNT_HOLD: `payoutAccountChanged`
     * (with the account it replaced) tells the caller to let the account's owners know. Recorded
     * in the audit log.
     */
    setAccountDetails: rpc(
      "directory.v1.account.details.set",
      z.object({ accountId: z.string(), details: AccountDetailsInput }),
      AccountDetailsView.extend({ payoutAccountChanged: z.boolean(), previousPayoutAccount: PayoutAccountInput.nullable() }),
    ),
    /** The audit log, newest first, a page at a time; `before` is the last entry of the previous page. */
    auditLog: read(
      "directory.v1.audit.list",
      AuditFilter.extend({ before: AuditCursor.optional(), limit: z.number().int().min(1).max(500).default(50) }),
      z.object({ items: z.array(AuditEvent) }),
    ),
  },
  dashboard: {
    /**
     * Admin CLI: a platform operator, who signs in to the dashboard and manages every shop (activity,
     * methods, tariffs). CONFLICT when the email is taken; BAD_REQUEST lists every problem.
     */
    createOperator: rpc("dashboard.v1.operator.create", Credentials, z.object({ userId: z.string(), email: z.string() })),
    /**
     * The owner of an existing account's dashboard team (the launcher's demo shop, or an account made
     * by shop:create), who invites the other members. NOT_FOUND for an unknown account, CONFLICT when
     * the email is taken or the account already has its team.
     */
    createMerchant: rpc(
      "dashboard.v1.merchant.create",
      Credentials.extend({ accountId: z.string() }),
      z.object({ userId: z.string(), email: z.string(), accountId: z.string() }),
    ),
    /**
     * Admin CLI, for someone who lost both their authenticator and their recovery codes (an owner
     * has nobody else to remove and invite them again): their second factor and recovery codes go
     * and their sessions end; they sign in with the password and enrol again. USER_NOT_FOUND when
     * no one signs in with the email.
     */
    resetTwoFactor: rpc("dashboard.v1.two_factor.reset", z.object({ email: z.string() }), z.object({ userId: z.string(), email: z.string() })),
  },
  balance: {
    /** The account's figures (spec §2.4); an account the ledger has never seen has zeros. */
    get: read("balance.v1.get", z.object({ accountId: z.string() }), Balance),
    /**
     * Takes amountKopecks out of the available balance (CONFLICT when it exceeds it). A retry with
     * the same idempotencyKey returns the first payout; the same key with another amount is CONFLICT.
     */
    createPayout: rpc(
      "balance.v1.payout.create",
      z.object({
        accountId: z.string(),
        amountKopecks: z.number().int().positive(),
        idempotencyKey: z.string().min(1).max(128).optional(),
      }),
      Payout,
      // Without a key, the call's own id is the key (repeatKey).
      { idempotent: true },
    ),
    /** Newest first; `startingAfter` is a payout id of the previous page (the next page holds older ones). */
    listPayouts: read(
      "balance.v1.payout.list",
      z.object({ accountId: z.string(), limit: z.number().int().min(1).max(500).default(100), startingAfter: z.string().optional() }),
      PayoutList,
    ),
    /** The account's payout schedule and its next payout (schedule null: payouts only on request). */
    getSchedule: read("balance.v1.schedule.get", z.object({ accountId: z.string() }), PayoutScheduleView),
    /** Sets the schedule (null turns it off); the next payout is worked out from now. Recorded in the audit log. */
    setSchedule: rpc("balance.v1.schedule.set", z.object({ accountId: z.string(), schedule: PayoutSchedule.nullable() }), PayoutScheduleView, { idempotent: true }),
    /** One payout of the account; PAYOUT_NOT_FOUND for another account's, as for none. */
    getPayout: read("balance.v1.payout.get", z.object({ accountId: z.string(), id: z.string() }), Payout),
    /** Operators: every account's payouts in one status, oldest first (what waits to be sent, what waits for the statement). */
    payoutsInStatus: read("balance.v1.payout.in-status", z.object({ status: PayoutStatus, limit: z.number().int().min(1).max(500).default(100) }), z.object({ items: z.array(Payout) })),
    /**
     * Operators: the PENDING payouts that may go now become payment orders in one exchange file
     * (1CClientBankExchange, Windows-1251) for upload to the bank; they are SENT from then on.
     * What waits (a new payout account's hold, no details) is listed. Not idempotent: a second
     * call makes a file of whatever is PENDING then (nothing twice).
     */
    exportPayouts: rpc("balance.v1.payout.export", z.object({ limit: z.number().int().min(1).max(300).default(300) }), PayoutExport),
    /** Operators: the exchange files made, newest first. */
    payoutBatches: read("balance.v1.payout.batches", z.object({ limit: z.number().int().min(1).max(200).default(20) }), z.object({ items: z.array(PayoutBatch) })),
    /** Operators: an exchange file again, the same bytes (base64). */
    payoutBatchFile: read("balance.v1.payout.batch-file", z.object({ batchId: z.string() }), z.object({ batch: PayoutBatch, fileBase64: z.string() })),
    /**
     * Operators: a bank statement in the same format (base64) taken in: each line of ours matched
     * to its payout. A statement that does not add up or whose lines differ from our orders
     * changes nothing (BAD_REQUEST with the reason); one taken in before changes nothing and
     * says when. Keyed by the file's hash, so a copy of the call changes nothing either.
     */
    importStatement: rpc("balance.v1.statement.import", z.object({ fileBase64: z.string().min(1) }), StatementReport, { idempotent: true }),
    /**
     * Operators: what the bank said outside a statement (a rejected file, a return the bank did
     * not quote the reference of): the payout moves as a statement line would move it, FAILED and
     * RETURNED giving the amount back once. CONFLICT when it cannot (already PAID, say).
     */
    recordPayoutOutcome: rpc(
      "balance.v1.payout.outcome",
      z.object({ payoutId: z.string(), status: z.enum(["PAID", "FAILED", "RETURNED"]), reason: z.string().min(1).max(500).optional() }),
      Payout,
      { idempotent: true },
    ),
    /**
     * Holds what a refund takes from the balance before the provider is asked; unique per refund id.
     * amountKopecks is the refund's share of the payment's net receipt (RefundEvent.balanceKopecks),
     * taken first from the payment's own frozen day, then from available. CONFLICT "refund of X
     * kopecks exceeds the available balance Y kopecks" when it does not fit; a repeat is
     * { reserved: true } again; { reserved: false } when the refund already ended FAILED (the
     * hold was released, so a late copy of this request holds nothing). The hold becomes a
     * debit on the refund's SUCCEEDED event and is given back on its FAILED event. `credit` is the
     * payment's SUCCESS, credited first unless its event already was, so a refund right after the
     * payment never waits for the stream.
     * Not for sandbox (isTest) payments: they never touch a balance.
     */
    reserveRefund: rpc(
      "balance.v1.refund.reserve",
      z.object({ refundId: Uuid, accountId: z.string(), paymentId: z.string(), amountKopecks: z.number().int().positive(), credit: PaymentCredit }),
      z.object({ reserved: z.boolean() }),
      { idempotent: true },
    ),
  },
  receipts: {
    /** Receipts of the shop's payments (API, payment detail), oldest first per payment. */
    list: read("receipts.v1.list", ShopScoped.extend({ paymentIds: z.array(Uuid).min(1).max(100) }), ReceiptList),
    /** The same without the lines (a line is up to 100 items), small enough for a whole export page. */
    summaries: read(
      "receipts.v1.summaries",
      ShopScoped.extend({ paymentIds: z.array(Uuid).min(1).max(1000) }),
      z.object({ items: z.array(ReceiptSummary) }),
    ),
    /**
     * A FAILED receipt goes back to the register with its attempts renewed (CONFLICT for any other
     * status). Without shopId (admin CLI, operators) any shop's receipt; with it only that shop's.
     */
    resend: rpc("receipts.v1.resend", z.object({ id: Uuid, shopId: z.string().optional() }), Receipt),
    /** The FAILED receipts of every shop (of one last error, when given), the latest failed first (admin CLI: what needs an operator). */
    failed: read(
      "receipts.v1.failed",
      z.object({ limit: z.number().int().min(1).max(1000), reason: ReasonCode.optional() }),
      z.object({ items: z.array(FailedReceipt) }),
    ),
  },
  webhooks: {
    /** Newest first; `before` is a delivery id from the previous page. */
    log: read(
      "webhooks.v1.log",
      ShopScoped.extend({
        paymentId: z.string().optional(),
        limit: z.number().int().min(1).max(200).default(50),
        before: z.string().optional(),
        ...DeliveryLogFilter.shape,
      }),
      z.object({ items: z.array(WebhookDelivery) }),
    ),
    /**
     * Dashboard overview: delivery health per shop for events of Moscow days [fromDay, toDay], from a
     * daily rollup; lastError is the endpoint's latest error, whenever it was.
     */
    health: read("webhooks.v1.health", ShopSet.extend({ fromDay: MoscowDay, toDay: MoscowDay }), z.object({ shops: z.array(DeliveryHealth) })),
    /** Same body, fresh signatures, a new attempt series (also after exhaustion). */
    resend: rpc("webhooks.v1.resend", ShopScoped.extend({ deliveryId: z.string() }), WebhookDelivery),
    /** Sends at once and waits for the reply: call with a timeout above WEBHOOK_TIMEOUT_MS. */
    test: rpc("webhooks.v1.test", ShopScoped, TestWebhookResult),
    /** Every delivery of the shop whose event occurred at or after `since` starts a new attempt series. */
    replay: rpc("webhooks.v1.replay", ShopScoped.extend({ since: IsoDateTime }), z.object({ requeued: z.number().int() })),
  },
} as const;

/**
 * A consistent copy of the service's own store, made by the service (docs/operations-database.md,
 * "Backups"): one subject per service, served by one of its replicas (they share the file). A copy
 * of the call finds the first one's finished copy and answers it.
 */
export const backupRpc = (service: BackedUpService) => rpc(`ops.v1.backup.${service}`, BackupRequest, StoreCopy, { idempotent: true });
