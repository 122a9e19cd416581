import type { z } from "zod";
import {
  Balance,
  CapturePaymentRequest,
  CreatePaymentRequest,
  CreatePayoutRequest,
  CreateRefundRequest,
  DeliveryIdParam,
  ListPaymentsQuery,
  LookupPaymentQuery,
  Payment,
  PaymentIdParam,
  PaymentListPage,
  Payout,
  PayoutList,
  PayoutScheduleView,
  PayoutsQuery,
  Refund,
  RefundList,
  SandboxOutcomeRequest,
  TestWebhookResult,
  WebhookDelivery,
  WebhookDeliveryList,
} from "./api.ts";
import { PaymentMethodIdParam, PaymentMethodList, PaymentMethodsQuery, SavedPaymentMethod } from "./payment-methods.ts";
import { PaymentsQuery } from "./payments-query.ts";
import { PAYMENT_STATUSES } from "./primitives.ts";
import { ReceiptList } from "./receipts.ts";

/**
 * Every operation of the merchant API (spec §4 and docs/gateway.md), defined once: the gateway
 * registers its routes from this table (services/gateway/src/routes/operations.ts) and the OpenAPI
 * document is built from it (openapi.ts), so a route cannot exist without its description or
 * answer differently from it. What each answers beyond `refusals` follows from its shape: 400 when
 * it validates anything, 413/415 with a body, 409/422 for an Idempotency-Key (every POST), and
 * 401, 429 and 5XX always.
 */

/** Values of one request part: the schema the gateway validates with, and its fields as documented. */
export type Fields<S extends z.ZodType = z.ZodType> = {
  schema: S;
  /** One entry per documented parameter (the schema may be a transform with no shape of its own). */
  shape: Record<string, z.ZodType>;
  describe: Record<string, string>;
};

/** Which per-key rate limit counts the operation (RATE_LIMIT_PER_METHOD or RATE_LIMIT_BALANCE), per key and operation. */
export type RateLimitClass = "perMethod" | "balance";

export type Operation = {
  method: "get" | "post";
  /** OpenAPI path template under the API base (`/api`). */
  path: `/v1/${string}`;
  tag: "Payments" | "Payment methods" | "Sandbox" | "Balance" | "Webhooks";
  summary: string;
  /** The operation's rate limit is appended from the configuration. */
  description: string;
  params?: Fields;
  query?: Fields;
  body?: { schema: z.ZodType; /** May be left out (read as `{}`). */ optional?: boolean };
  /** One schema, or several for an answer that is one of them (oneOf). */
  success: { status: 200 | 201; description: string; schema: z.ZodType | readonly z.ZodType[] };
  /** What the owning service may refuse with, besides what the shape implies. */
  refusals: readonly ("NotFound" | "Conflict")[];
  rateLimit: RateLimitClass;
  /** The bound of its NATS requests: `slow` (GATEWAY_SLOW_CALL_TIMEOUT) when it waits for a merchant's server. */
  callTimeout: "rpc" | "slow";
  /**
   * The requests whose Idempotency-Key the owning service keeps in its write's own transaction
   * instead of the gateway's bucket (docs/gateway.md, "Idempotency keys"), so that a twin of a
   * running one waits for its answer instead of a 409: `applies` to the validated body, `which`
   * names them in the document.
   */
  keyKeptWithWrite?: { applies: (body: unknown) => boolean; which: string };
};

/** Every POST of the API takes an Idempotency-Key (docs/gateway.md, "Idempotency keys"). */
export const isIdempotent = (op: Pick<Operation, "method">) => op.method === "post";

const fields = <S extends z.ZodObject>(schema: S, describe: Record<keyof S["shape"] & string, string>): Fields<S> => ({
  schema,
  shape: schema.shape,
  describe,
});

const paymentId = fields(PaymentIdParam, { id: "The payment's `id` (UUID). A malformed id gives 400." });
const payoutId = fields(PaymentIdParam, { id: "The payout's `id` (UUID). A malformed id gives 400." });
const methodId = fields(PaymentMethodIdParam, { id: "The saved method's `id` (UUID): `paymentMethod.id` of the payment that saved it. A malformed id gives 400." });

const defineOperations = <const T extends Record<string, Operation>>(ops: T) => ops;

/** In the document's order; the key is the operationId. */
export const operations = defineOperations({
  createPayment: {
    method: "post",
    path: "/v1/payments",
    tag: "Payments",
    summary: "Create a payment",
    description:
      "Creates a payment in status CREATED and returns it with payUrl. No money moves until the buyer pays on payUrl. The same orderId never creates a second payment: it gives 409. Optional additions, each changing nothing when left out: `savePaymentMethod` asks the buyer to save the method for later charges (`customerId` files it under your buyer); `paymentMethodId` charges a saved method now, without the buyer: the payment is created PENDING and its outcome arrives as for any payment (a FAILED one says why in failureCode; AUTHENTICATION_REQUIRED means the buyer can still complete it on payUrl); `capture: false` holds the amount on the buyer's card (status AUTHORIZED with captureDeadline) until you capture or cancel it (cards only: an SBP payment is 400 HOLD_NOT_FOR_SBP). A saved method that is not ACTIVE gives 409 SAVED_METHOD_INACTIVE, an unknown one 404.",
    body: { schema: CreatePaymentRequest },
    success: { status: 201, description: "Created.", schema: Payment },
    refusals: ["Conflict"],
    rateLimit: "perMethod",
    callTimeout: "rpc",
    // A charge answers after the acquirer, outside the insert's transaction: it keeps the bucket.
    keyKeptWithWrite: { applies: (body) => (body as CreatePaymentRequest).paymentMethodId === undefined, which: "a create without `paymentMethodId`" },
  },
  listPayments: {
    method: "get",
    path: "/v1/payments",
    tag: "Payments",
    summary: "Find a payment by order number, or list payments",
    description:
      "With orderId: one Payment (not an array), or 404. Without: a PaymentListPage of payments ordered oldest to newest; pages are stable.",
    query: {
      schema: PaymentsQuery,
      shape: { orderId: LookupPaymentQuery.shape.orderId.optional(), ...ListPaymentsQuery.shape },
      describe: {
        orderId: "Lookup mode: the merchant's order number. When given, every other parameter is ignored and the answer is one Payment or 404.",
        from: "Start of the period on createdAt, inclusive: ISO 8601 date-time with seconds and `Z` or an offset (percent-encode `+` as `%2B`).",
        to: "End of the period on createdAt, inclusive at the precision written: `…T23:59:59Z` includes 23:59:59.999. `from` later than `to` gives 400.",
        status: `Comma-separated statuses to keep, from: ${PAYMENT_STATUSES.join(", ")}.`,
        page: "Page number.",
        limit: "Page size.",
      },
    },
    success: { status: 200, description: "A Payment in lookup mode, a PaymentListPage in list mode.", schema: [Payment, PaymentListPage] },
    refusals: ["NotFound"],
    rateLimit: "perMethod",
    callTimeout: "rpc",
  },
  getPayment: {
    method: "get",
    path: "/v1/payments/{id}",
    tag: "Payments",
    summary: "Get a payment by id",
    description: "Reads one payment of this shop.",
    params: paymentId,
    success: { status: 200, description: "The payment.", schema: Payment },
    refusals: ["NotFound"],
    rateLimit: "perMethod",
    callTimeout: "rpc",
  },
  cancelPayment: {
    method: "post",
    path: "/v1/payments/{id}/cancel",
    tag: "Payments",
    summary: "Cancel a payment before payment starts, or void a hold",
    description:
      "CREATED → CANCELED: payUrl stops accepting payment and one CANCELED webhook is sent; the orderId stays taken. AUTHORIZED → CANCELED: the hold is released at the bank (a void) and one CANCELED webhook is sent. Repeating it returns 200 again. 409 when the buyer has started paying (PENDING) or the payment is in another final status (a hold past its captureDeadline is EXPIRED).",
    params: paymentId,
    success: { status: 200, description: "The canceled payment.", schema: Payment },
    refusals: ["NotFound", "Conflict"],
    rateLimit: "perMethod",
    callTimeout: "rpc",
  },
  capturePayment: {
    method: "post",
    path: "/v1/payments/{id}/capture",
    tag: "Payments",
    summary: "Capture a held payment, whole or in part",
    description:
      "AUTHORIZED → SUCCESS: takes amountKopecks of the hold (default: all of it) and releases the rest; the payment's amountKopecks becomes the captured amount (heldKopecks keeps the hold), its commission is computed on it, and the SUCCESS webhook is sent. The balance receives the captured amount from the capture's day, and the sale receipt is of what was captured: a partial capture of a payment with a receipt takes `receipt.items` adding up to the captured amount. Repeating the capture with the same amount (or none) returns 200 again; another amount is 409 HOLD_ALREADY_CAPTURED. 409 PAYMENT_NOT_CAPTURABLE when the payment is not AUTHORIZED (still PENDING, voided, or EXPIRED at its captureDeadline); 400 CAPTURE_EXCEEDS_HOLD above the hold. A 503 PROVIDER_NO_ANSWER means the bank may have captured: the webhook tells, or repeat the call.",
    params: paymentId,
    body: { schema: CapturePaymentRequest, optional: true },
    success: { status: 200, description: "The captured payment.", schema: Payment },
    refusals: ["NotFound", "Conflict"],
    rateLimit: "perMethod",
    callTimeout: "rpc",
  },
  listPaymentReceipts: {
    method: "get",
    path: "/v1/payments/{id}/receipts",
    tag: "Payments",
    summary: "List a payment's fiscal receipts",
    description:
      "The sale receipt and every refund receipt of the payment, oldest first; empty when it was created without a receipt or is not paid yet. A receipt appears within seconds of the event and turns REGISTERED once the cash register confirms it.",
    params: paymentId,
    success: { status: 200, description: "The receipts.", schema: ReceiptList },
    refusals: ["NotFound"],
    rateLimit: "perMethod",
    callTimeout: "rpc",
  },
  refundPayment: {
    method: "post",
    path: "/v1/payments/{id}/refunds",
    tag: "Payments",
    summary: "Refund a paid payment, whole or in part",
    description:
      "Returns amountKopecks (default: everything not yet refunded) to the buyer. Several partial refunds may add up to the payment's amount; the payment's refundedKopecks counts the SUCCEEDED ones, and when they reach amountKopecks the payment becomes REFUNDED and the usual REFUNDED webhook is sent (a partial refund sends no webhook). The refund's share of the net receipt (amount − commission, so the commission comes back in proportion) leaves the balance, first from the payment's own receipt while it is still frozen, then from available. 201 with the refund: SUCCEEDED, FAILED when the bank declined it (nothing was refunded; failureReason says why), or PENDING when the bank has not answered yet (it completes on its own; read GET …/refunds). 409 when the payment is not SUCCESS, the amount is above what is left to refund, or the balance cannot cover it; the message gives the amounts in rubles and kopecks. An Idempotency-Key header makes a retry return the first refund. On 5XX the outcome is unknown: read the refunds before refunding again.",
    params: paymentId,
    body: { schema: CreateRefundRequest, optional: true },
    success: { status: 201, description: "The refund.", schema: Refund },
    refusals: ["NotFound", "Conflict"],
    rateLimit: "perMethod",
    callTimeout: "rpc",
  },
  listRefunds: {
    method: "get",
    path: "/v1/payments/{id}/refunds",
    tag: "Payments",
    summary: "List a payment's refunds",
    description: "Every refund of the payment, oldest first, FAILED ones included.",
    params: paymentId,
    success: { status: 200, description: "The refunds.", schema: RefundList },
    refusals: ["NotFound"],
    rateLimit: "perMethod",
    callTimeout: "rpc",
  },
  getPaymentMethod: {
    method: "get",
    path: "/v1/payment-methods/{id}",
    tag: "Payment methods",
    summary: "Get a saved payment method",
    description:
      "A card or SBP account the buyer agreed to save at a payment of this shop, as it stands now: ACTIVE (chargeable), EXPIRED (the card's expiry passed or its bank says so) or REVOKED (by you, by the payer in their bank app, or by the card's bank). Never a card number: brand, last 4 digits and expiry.",
    params: methodId,
    success: { status: 200, description: "The saved method.", schema: SavedPaymentMethod },
    refusals: ["NotFound"],
    rateLimit: "perMethod",
    callTimeout: "rpc",
  },
  listPaymentMethods: {
    method: "get",
    path: "/v1/payment-methods",
    tag: "Payment methods",
    summary: "List saved payment methods",
    description: "The shop's saved methods, newest first, a page at a time; with customerId, only those saved for that buyer. Inactive ones included: check status.",
    query: fields(PaymentMethodsQuery, {
      customerId: "Only the methods saved at payments created with this customerId.",
      limit: "Page size.",
      startingAfter: "The `id` of the last method of the previous page: the page holds the methods saved before it.",
    }),
    success: { status: 200, description: "One page of saved methods.", schema: PaymentMethodList },
    refusals: [],
    rateLimit: "perMethod",
    callTimeout: "rpc",
  },
  revokePaymentMethod: {
    method: "post",
    path: "/v1/payment-methods/{id}/revoke",
    tag: "Payment methods",
    summary: "Revoke a saved payment method",
    description:
      "The method becomes REVOKED (by MERCHANT) at the bank and here: every later charge with it is refused with 409 SAVED_METHOD_INACTIVE. No webhook is sent for your own revocation. Repeating it returns 200 again; a method that is already inactive is returned as it is.",
    params: methodId,
    success: { status: 200, description: "The revoked method.", schema: SavedPaymentMethod },
    refusals: ["NotFound"],
    rateLimit: "perMethod",
    callTimeout: "rpc",
  },
  completeSandboxPayment: {
    method: "post",
    path: "/v1/sandbox/payments/{id}/outcome",
    tag: "Sandbox",
    summary: "Complete a sandbox payment from code",
    description:
      "A test helper for sandbox shops: completes a payment, a charge or a hold with the outcome a buyer or a bank would give, with the same webhooks and saved methods as a real outcome, so an integration is tested without a browser. SUCCESS pays a CREATED or PENDING payment (a `capture: false` one becomes AUTHORIZED; one with savePaymentMethod saves a test method), or completes a charge whose authentication was required. FAILED declines it with `failureCode` (default CARD_DECLINED; METHOD_REVOKED and CARD_EXPIRED also end the charged method, with its webhook). EXPIRED lets its time run out, or an AUTHORIZED hold's captureDeadline. 409 for a live shop's payment, or an outcome that does not apply to the payment's status.",
    params: paymentId,
    body: { schema: SandboxOutcomeRequest },
    success: { status: 200, description: "The payment with its outcome.", schema: Payment },
    refusals: ["NotFound", "Conflict"],
    rateLimit: "perMethod",
    callTimeout: "rpc",
  },
  listPaymentWebhooks: {
    method: "get",
    path: "/v1/payments/{id}/webhooks",
    tag: "Webhooks",
    summary: "List a payment's webhook deliveries",
    description:
      "Every webhook sent for the payment (one per final status) with each attempt and the receiver's answer, newest first. A payment of another shop is 404.",
    params: paymentId,
    success: { status: 200, description: "The deliveries.", schema: WebhookDeliveryList },
    refusals: ["NotFound"],
    rateLimit: "perMethod",
    callTimeout: "rpc",
  },
  resendWebhook: {
    method: "post",
    path: "/v1/webhooks/deliveries/{deliveryId}/resend",
    tag: "Webhooks",
    summary: "Send a webhook again",
    description:
      "Sends the delivery's stored body again with fresh signatures, as a new series of attempts on the usual schedule (also after the attempts were exhausted). A delivery of another shop is 404. Receivers must already handle repeats idempotently by (id, status).",
    params: fields(DeliveryIdParam, { deliveryId: "A delivery's `id` (UUID) from the payment's delivery list. A malformed id gives 400." }),
    success: { status: 200, description: "The delivery, its new series queued.", schema: WebhookDelivery },
    refusals: ["NotFound"],
    rateLimit: "perMethod",
    callTimeout: "rpc",
  },
  sendTestWebhook: {
    method: "post",
    path: "/v1/webhooks/test",
    tag: "Webhooks",
    summary: "Send a test webhook",
    description:
      "Sends a signed webhook with `test: true` to the shop's Webhook URL at once and waits for the receiver's answer (up to the receiver timeout). Nothing is stored or retried. Without a Webhook URL the result says so in `error`.",
    success: { status: 200, description: "The receiver's answer.", schema: TestWebhookResult },
    refusals: [],
    rateLimit: "perMethod",
    callTimeout: "slow",
  },
  // Payouts move the balance the balance limit guards (one ledger writer): the same class.
  createPayout: {
    method: "post",
    path: "/v1/payouts",
    tag: "Balance",
    summary: "Pay out of the available balance",
    description:
      "Takes the amount out of the account's available balance at once (never more than available, also under concurrent requests: 409 names both amounts) and pays it to the account's settlement account: the payout is `PENDING`, then `SENT` (a payment order went to the bank), `PAID` (the bank debited it), or `FAILED` / `RETURNED` with the amount back on the available balance; each status is also a webhook (`PAYOUT_<status>`). 409 too while the account has no payout details (entered in the dashboard). Send an Idempotency-Key to retry safely.",
    body: { schema: CreatePayoutRequest },
    success: { status: 201, description: "The payout.", schema: Payout },
    refusals: ["Conflict"],
    rateLimit: "balance",
    callTimeout: "rpc",
  },
  listPayouts: {
    method: "get",
    path: "/v1/payouts",
    tag: "Balance",
    summary: "List payouts",
    description: "The account's payouts, newest first, a page at a time.",
    query: fields(PayoutsQuery, {
      limit: "Page size.",
      startingAfter: "The `id` of the last payout of the previous page: the page holds the payouts made before it.",
    }),
    success: { status: 200, description: "One page of payouts.", schema: PayoutList },
    refusals: [],
    rateLimit: "balance",
    callTimeout: "rpc",
  },
  getPayout: {
    method: "get",
    path: "/v1/payouts/{id}",
    tag: "Balance",
    summary: "Get a payout",
    description: "One payout of the account, with its payment order once sent (number, date, reference, where it went).",
    params: payoutId,
    success: { status: 200, description: "The payout.", schema: Payout },
    refusals: ["NotFound"],
    rateLimit: "balance",
    callTimeout: "rpc",
  },
  getPayoutSchedule: {
    method: "get",
    path: "/v1/payout-schedule",
    tag: "Balance",
    summary: "Get the payout schedule",
    description:
      "The account's payout schedule, set in the dashboard: daily, or weekly on `weekday` (1 Monday … 7 Sunday), at `time` Moscow time, a payout of everything available above `minimumKopecks`; `nextPayoutAt` is when the next one is due. `schedule` null: payouts are made only on request.",
    success: { status: 200, description: "The schedule.", schema: PayoutScheduleView },
    refusals: [],
    rateLimit: "balance",
    callTimeout: "rpc",
  },
  getBalance: {
    method: "get",
    path: "/v1/balance",
    tag: "Balance",
    summary: "Get the account balance",
    description: "The same figures as the dashboard's balance section.",
    success: { status: 200, description: "The balance.", schema: Balance },
    refusals: [],
    rateLimit: "balance",
    callTimeout: "rpc",
  },
});

export type Operations = typeof operations;
export type OperationId = keyof Operations;

/**
 * Facts of the running configuration that the document states: the gateway passes them from its
 * own configuration (services/gateway/src/config.ts, `apiFacts`), so the document cannot promise
 * other limits or another webhook schedule than the deployment has.
 */
export type ApiFacts = {
  /** Requests per minute per API key and operation of each class, and per client address over the whole API. */
  rateLimitsPerMinute: Record<RateLimitClass | "perIp", number>;
  maxBodyBytes: number;
  /** How long a webhook receiver has to answer. */
  webhookTimeoutMs: number;
  /** Pauses before the 2nd, 3rd, … delivery attempt. */
  webhookRetryDelaysMs: readonly number[];
};
