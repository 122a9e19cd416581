import { z } from "zod";
import {
  intParam,
  IsoDateTime,
  jsonFitsIn,
  jsonValueProblems,
  MAX_AMOUNT_KOPECKS,
  METADATA_MAX_BYTES,
  MIN_AMOUNT_KOPECKS,
  PAYMENT_STATUSES,
  PaymentMethod,
  PaymentStatus,
  PayoutStatus,
  ReturnUrl,
  Text,
  Uuid,
  UuidInput,
} from "./primitives.ts";
import { CustomerId, PaymentMethodDetails, SavedPaymentMethod } from "./payment-methods.ts";
import { ReasonCode, ReasonParams } from "./reasons.ts";
import { itemsMustAddUp, MAX_RECEIPT_ITEMS, ReceiptItemInput, ReceiptRequest } from "./receipts.ts";

/** Checked before the record is parsed: zod's record drops a `__proto__` key without a word. */
// The parameter's type is the schema's input type: callers (the SDK) see a JSON object, not unknown.
export const Metadata = z.preprocess(
  (value: Record<string, unknown>, ctx) => {
    for (const p of jsonValueProblems(value)) ctx.addIssue({ code: "custom", input: value, ...p });
    return value;
  },
  z.record(z.string(), z.unknown()).refine((m) => jsonFitsIn(m, METADATA_MAX_BYTES), {
    message: `must be at most ${METADATA_MAX_BYTES} bytes as JSON`,
    params: { rule: "METADATA_TOO_LARGE", maxBytes: METADATA_MAX_BYTES },
  }),
);

export const TelegramId = z
  .union([
    z.string().regex(/^\d{1,20}$/, { message: "must be a string of 1 to 20 digits or an integer" }),
    // int() is a safe integer already: a second max() listed the same problem twice
    z.number().int().nonnegative(),
  ])
  .transform((v) => String(v));

/**
 * A charge with a saved method takes its method from it, and that method is saved already: a
 * create naming both is contradictory, and every such field is listed at once.
 */
function savedMethodDecides<S extends z.ZodType<{ paymentMethodId?: string; method?: string; savePaymentMethod?: boolean }>>(schema: S) {
  return schema.superRefine((v, ctx) => {
    if (v.paymentMethodId === undefined) return;
    const clash = (field: string) =>
      ctx.addIssue({ code: "custom", path: [field], input: v, message: "must not be sent with paymentMethodId: the saved method decides it", params: { rule: "WITH_PAYMENT_METHOD_ID" } });
    if (v.method !== undefined) clash("method");
    if (v.savePaymentMethod === true) clash("savePaymentMethod");
  });
}

/**
 * §2.1. Unknown fields are ignored (stripped). Our additions: `receipt` (docs/receipts.md);
 * `savePaymentMethod`, `customerId`, `paymentMethodId` and `capture` (docs/payments.md, "Saved
 * methods, charges and two-stage payments"), each changing nothing when left out.
 */
export const CreatePaymentRequest = savedMethodDecides(itemsMustAddUp(z.object({
  orderId: Text.min(1).max(64),
  amountKopecks: z.number().int().min(MIN_AMOUNT_KOPECKS).max(MAX_AMOUNT_KOPECKS),
  description: Text.max(255).optional(),
  email: z.email().max(255).optional(),
  method: PaymentMethod.optional(),
  telegramId: TelegramId.optional(),
  metadata: Metadata.optional(),
  successUrl: ReturnUrl.optional(),
  failUrl: ReturnUrl.optional(),
  receipt: ReceiptRequest.optional(),
  /** Ask the buyer on the payment page to save the method for later charges without them. */
  savePaymentMethod: z.boolean().optional(),
  /** The merchant's reference for the buyer: a saved method is listed under it. */
  customerId: CustomerId.optional(),
  /** Charge this saved method now, without the buyer (a merchant-initiated payment). */
  paymentMethodId: UuidInput.optional(),
  /** false: hold the amount on the buyer's card (AUTHORIZED) until captured or voided. Cards only. */
  capture: z.boolean().optional(),
})));
export type CreatePaymentRequest = z.output<typeof CreatePaymentRequest>;
export type CreatePaymentInput = z.input<typeof CreatePaymentRequest>;

/**
 * Fields added to §2.2 for saved methods, merchant-initiated charges and two-stage payments
 * (docs/payments.md). Each is present only on a payment that uses its feature, so a client that
 * asks for none of them gets the spec's objects and webhooks byte for byte.
 */
export const PaymentExtras = z.object({
  /** Echo of the create's customerId. */
  customerId: z.string().optional(),
  /** Echo of the create's savePaymentMethod: true. */
  savePaymentMethod: z.literal(true).optional(),
  /** The saved method this payment charged, or saved once paid (absent when the buyer did not agree to save). */
  paymentMethod: PaymentMethodDetails.optional(),
  /** Charged by the shop with a saved method, without the buyer. */
  merchantInitiated: z.literal(true).optional(),
  /** Echo of the create's capture: false (a two-stage payment). */
  capture: z.literal(false).optional(),
  /** A two-stage payment: the amount asked to be held. amountKopecks is what is taken: the same until a partial capture makes it less. */
  heldKopecks: z.number().int().optional(),
  /** AUTHORIZED: when the hold is released by itself (the payment becomes EXPIRED); null in any other status. */
  captureDeadline: IsoDateTime.nullable().optional(),
  /** A FAILED merchant-initiated payment: why, as a reason of the catalogue, in English, and its figures. */
  failureCode: ReasonCode.optional(),
  failureReason: z.string().optional(),
  failureParams: ReasonParams.optional(),
});
export type PaymentExtras = z.infer<typeof PaymentExtras>;

/** §2.2: every field of the spec always present; the extras only where their feature is used. */
export const Payment = z.object({
  id: Uuid,
  orderId: z.string(),
  status: PaymentStatus,
  amountKopecks: z.number().int(),
  commissionKopecks: z.number().int(),
  description: z.string().nullable(),
  method: PaymentMethod.nullable(),
  telegramId: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()).nullable(),
  successUrl: z.string().nullable(),
  failUrl: z.string().nullable(),
  payUrl: z.url(),
  isTest: z.boolean(),
  paidAt: IsoDateTime.nullable(),
  createdAt: IsoDateTime,
  /** Added to §2.2: the sum of the payment's SUCCEEDED refunds (0 when none); equals amountKopecks once REFUNDED. */
  refundedKopecks: z.number().int(),
  ...PaymentExtras.shape,
});
export type Payment = z.infer<typeof Payment>;

/** The receipt lines of a partial capture: what was actually sold, adding up to the captured amount. */
export const CaptureReceipt = z.object({ items: z.array(ReceiptItemInput).min(1).max(MAX_RECEIPT_ITEMS) });
export type CaptureReceipt = z.output<typeof CaptureReceipt>;

/**
 * POST /v1/payments/{id}/capture. Without amountKopecks the whole hold is taken; with it, that
 * much (at most the hold) and the rest released. A payment with a fiscal receipt needs `receipt`
 * on a partial capture: the lines of what was sold (54-FZ), the shop's defaults applied as at create.
 */
export const CapturePaymentRequest = z.object({
  amountKopecks: z.number().int().min(MIN_AMOUNT_KOPECKS).max(MAX_AMOUNT_KOPECKS).optional(),
  receipt: CaptureReceipt.optional(),
});
export type CapturePaymentRequest = z.output<typeof CapturePaymentRequest>;

/** What a tester picks on a sandbox payment page, or sends from code (POST /v1/sandbox/payments/{id}/outcome). */
export const SandboxOutcome = z.enum(["SUCCESS", "FAILED", "EXPIRED"]);

/** The declines a sandbox payment or charge may be given, as a live one gets them from the bank. */
export const SANDBOX_FAILURES = ["CARD_DECLINED", "INSUFFICIENT_FUNDS", "CARD_EXPIRED", "METHOD_REVOKED", "AUTHENTICATION_REQUIRED"] as const;

/**
 * POST /v1/sandbox/payments/{id}/outcome: a sandbox payment, charge or hold completed as a buyer
 * or a bank would, with the same webhooks (docs/payments.md, "The sandbox from code").
 */
export const SandboxOutcomeRequest = z
  .object({
    outcome: SandboxOutcome,
    /** FAILED only: the bank's reason (default CARD_DECLINED); METHOD_REVOKED and CARD_EXPIRED also end a charged method. */
    failureCode: z.enum(SANDBOX_FAILURES).optional(),
  })
  .refine((r) => r.failureCode === undefined || r.outcome === "FAILED", {
    path: ["failureCode"],
    message: "only with outcome FAILED",
    params: { rule: "FAILURE_CODE_WITHOUT_FAILED" },
  });
export type SandboxOutcomeRequest = z.output<typeof SandboxOutcomeRequest>;

export const REFUND_STATUSES = ["PENDING", "SUCCEEDED", "FAILED"] as const;
export const RefundStatus = z.enum(REFUND_STATUSES);
export type RefundStatus = z.infer<typeof RefundStatus>;

/** One refund of a payment (docs/payments.md, "Refunds"). A payment may have several, partial ones included. */
export const Refund = z.object({
  id: Uuid,
  paymentId: Uuid,
  amountKopecks: z.number().int(),
  reason: z.string().nullable(),
  status: RefundStatus,
  /** Why a FAILED refund failed (the acquirer's decline, or the balance could not cover it), in English; null otherwise. */
  failureReason: z.string().nullable(),
  /** The same as a reason of the catalogue (the Error's `code`) and its parameters, for programs. */
  failureCode: ReasonCode.nullable(),
  failureParams: ReasonParams.nullable(),
  createdAt: IsoDateTime,
  completedAt: IsoDateTime.nullable(),
});
export type Refund = z.infer<typeof Refund>;

/** POST /v1/payments/{id}/refunds. Without amountKopecks the refund is of everything not yet refunded. */
export const CreateRefundRequest = z.object({
  amountKopecks: z.number().int().min(1).max(MAX_AMOUNT_KOPECKS).optional(),
  reason: Text.max(255).optional(),
});
export type CreateRefundRequest = z.output<typeof CreateRefundRequest>;

/** A payment's refunds, oldest first. */
export const RefundList = z.object({ items: z.array(Refund) });
export type RefundList = z.infer<typeof RefundList>;

/** §2.3 */
export const PaymentListPage = z.object({
  items: z.array(Payment),
  total: z.number().int(),
  page: z.number().int(),
  pageSize: z.number().int(),
});
export type PaymentListPage = z.infer<typeof PaymentListPage>;

const statusList = z
  .string()
  .transform((s, ctx) => {
    const parts = s.split(",").map((p) => p.trim()).filter((p) => p.length > 0);
    const unknown = parts.filter((p) => !(PAYMENT_STATUSES as readonly string[]).includes(p));
    if (parts.length === 0 || unknown.length > 0) {
      ctx.addIssue({
        code: "custom",
        message: `unknown status ${unknown.join(", ") || "(empty)"}; allowed: ${PAYMENT_STATUSES.join(", ")}`,
        params: { rule: "UNKNOWN_STATUS", values: unknown.join(", "), allowed: PAYMENT_STATUSES.join(", ") },
      });
      return z.NEVER;
    }
    return [...new Set(parts)] as PaymentStatus[];
  });

/** §4.2 list mode. Query values arrive as strings. */
/**
 * §4.2's `to` is inclusive at the precision it is written in: `…T23:59:59Z` ends at 23:59:59.999,
 * `…T23:59:59.5Z` at .599, three or more decimals at that millisecond. createdAt has milliseconds,
 * so read as an instant a day's `to=…23:59:59Z` left out the payments of its last second.
 * Idempotent: its own output (three decimals) maps to itself, as payments parses the query again.
 */
export function inclusiveEnd(iso: string): string {
  const decimals = /\.(\d+)/.exec(iso)?.[1]?.length ?? 0;
  return new Date(Date.parse(iso) + (decimals >= 3 ? 0 : 10 ** (3 - decimals) - 1)).toISOString();
}

export const ListPaymentsQuery = z
  .object({
    from: IsoDateTime.optional(),
    to: IsoDateTime.transform(inclusiveEnd).optional(),
    status: statusList.optional(),
    page: intParam(1, 10000, 1),
    limit: intParam(1, 100, 20),
  })
  .refine((q) => !(q.from && q.to && Date.parse(q.from) > Date.parse(q.to)), {
    path: ["from"],
    message: "must not be later than to",
    params: { rule: "FROM_AFTER_TO" },
    // Also when other parameters are invalid, so that every problem is listed at once (§7).
    when: (payload) => !payload.issues.some((i) => i.path?.[0] === "from" || i.path?.[0] === "to"),
  });
export type ListPaymentsQuery = z.output<typeof ListPaymentsQuery>;

/** §4.2 lookup mode: only orderId is read. */
export const LookupPaymentQuery = z.object({ orderId: Text.min(1).max(64) });

export const PaymentIdParam = z.object({ id: UuidInput });

/** §2.4 */
export const Balance = z.object({
  availableKopecks: z.number().int(),
  frozenKopecks: z.number().int(),
  holdHour: z.number().int().min(0).max(23),
});
export type Balance = z.infer<typeof Balance>;

/**
 * What a webhook adds to §2.5, after `test`: the payment's extras, present as on the Payment.
 * A saved method's own webhooks (PAYMENT_METHOD_REVOKED, PAYMENT_METHOD_EXPIRED: the payer or the
 * bank ended it) carry the whole method as it now stands (docs/webhooks.md, "Saved methods").
 */
export const WebhookExtras = PaymentExtras.extend({
  paymentMethod: z.union([SavedPaymentMethod, PaymentMethodDetails]).optional(),
});
export type WebhookExtras = z.infer<typeof WebhookExtras>;

// ── payouts (API and balance ledger) ────────────────────────────────────────
/** The payment order that carries a payout to the bank, from the moment it is sent. */
export const PaymentOrderInfo = z.object({
  /** The order's number and date, as the bank statement shows them. */
  number: z.number().int(),
  date: z.string(),
  /** Also in the order's purpose, so a statement line or a return is matched to its payout. */
  reference: z.string(),
  /** How it went to the bank: "exchange-file" (1C exchange file the operator uploads) or Sber's API for payment orders ("sber"). */
  rail: z.string(),
  recipientName: z.string(),
  bik: z.string(),
  account: z.string(),
  purpose: z.string(),
});
export type PaymentOrderInfo = z.infer<typeof PaymentOrderInfo>;

export const Payout = z.object({
  id: z.string(),
  accountId: z.string(),
  amountKopecks: z.number().int(),
  status: PayoutStatus,
  createdAt: z.string(),
  /** Made by the account's payout schedule rather than on someone's request. */
  scheduled: z.boolean(),
  order: PaymentOrderInfo.nullable(),
  sentAt: z.string().nullable(),
  paidAt: z.string().nullable(),
  /** When it failed or came back (FAILED, RETURNED): its amount was put back on the available balance then. */
  failedAt: z.string().nullable(),
  returnedAt: z.string().nullable(),
  /** Why the bank refused or returned it, in the bank's words. */
  failureReason: z.string().nullable(),
});
export type Payout = z.infer<typeof Payout>;
/** POST /v1/payouts */
export const CreatePayoutRequest = z.object({ amountKopecks: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER) });
export type CreatePayoutRequest = z.infer<typeof CreatePayoutRequest>;
/** GET /v1/payouts: newest first, `startingAfter` is the last payout id of the previous page. */
export const PayoutsQuery = z.object({
  limit: intParam(1, 100, 20),
  startingAfter: UuidInput.optional(),
});
export const PayoutList = z.object({ items: z.array(Payout), hasMore: z.boolean() });
export type PayoutList = z.infer<typeof PayoutList>;

/**
 * An account's payout schedule (docs/balance.md, "Scheduled payouts"): daily, or weekly on a day,
 * at a Moscow time, a payout of everything available above `minimumKopecks` (which stays on the
 * balance, for refunds). Set in the dashboard; the API reads it.
 */
export const PAYOUT_FREQUENCIES = ["daily", "weekly"] as const;
export const PayoutSchedule = z
  .object({
    frequency: z.enum(PAYOUT_FREQUENCIES),
    /** ISO weekday of a weekly schedule: 1 Monday … 7 Sunday; null for a daily one. */
    weekday: z.number().int().min(1).max(7).nullable(),
    /** Moscow time, HH:MM. */
    time: z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, { message: "must be a time HH:MM" }),
    /** What stays on the balance; the payout takes what is available above it. */
    minimumKopecks: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  })
  .refine((s) => (s.frequency === "weekly") === (s.weekday !== null), { message: "a weekly schedule has a weekday, a daily one none", path: ["weekday"] });
export type PayoutSchedule = z.infer<typeof PayoutSchedule>;
/** GET /v1/payout-schedule: the schedule (null: payouts only on request) and when the next scheduled payout is due. */
export const PayoutScheduleView = z.object({ schedule: PayoutSchedule.nullable(), nextPayoutAt: z.string().nullable() });
export type PayoutScheduleView = z.infer<typeof PayoutScheduleView>;

/** §2.5, and the extras of a payment that uses saved methods, charges or holds. */
export const WebhookBody = z.object({
  id: z.string(),
  orderId: z.string(),
  status: z.string(),
  amountKopecks: z.number().int(),
  telegramId: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()).nullable().optional(),
  test: z.boolean().optional(),
  ...WebhookExtras.shape,
  /** A payout's webhook (status PAYOUT_<status>): the payout as it stood then (docs/webhooks.md, "Payouts"). */
  payout: Payout.optional(),
});
export type WebhookBody = z.infer<typeof WebhookBody>;

/** §2.6 */
export const ErrorBody = z.object({
  statusCode: z.number().int(),
  message: z.union([z.string(), z.array(z.string())]),
  error: z.string().optional(),
  /** The reason (reasons.ts): stable, for programs; `message` is English for people and may be reworded. */
  code: ReasonCode,
  /** The reason's figures (amounts in kopecks); for VALIDATION_FAILED, `issues`: one per problem. */
  params: ReasonParams,
});
export type ErrorBody = z.infer<typeof ErrorBody>;

// ── webhook deliveries ──────────────────────────────────────────────────────
export const WebhookAttempt = z.object({
  /** Attempt series: 1 for the event itself, +1 for every manual resend or replay. */
  series: z.number().int().min(1),
  /** 1-based attempt number within the series (at most 7 with the default schedule). */
  attempt: z.number().int().min(1),
  at: z.string(),
  httpStatus: z.number().int().nullable(),
  /** Why the attempt failed, in English; errorCode and errorParams say the same for programs. */
  error: z.string().nullable(),
  errorCode: ReasonCode.nullable(),
  errorParams: ReasonParams.nullable(),
  durationMs: z.number(),
});
export type WebhookAttempt = z.infer<typeof WebhookAttempt>;
export const WebhookDelivery = z.object({
  id: z.string(),
  shopId: z.string(),
  paymentId: z.string(),
  orderId: z.string(),
  status: z.string(),
  /** pending | delivered | exhausted | blocked */
  result: z.enum(["pending", "delivered", "exhausted", "blocked"]),
  attemptCount: z.number().int(),
  lastError: z.string().nullable(),
  lastErrorCode: ReasonCode.nullable(),
  lastErrorParams: ReasonParams.nullable(),
  nextAttemptAt: z.string().nullable(),
  createdAt: z.string(),
  attempts: z.array(WebhookAttempt),
});
export type WebhookDelivery = z.infer<typeof WebhookDelivery>;
/** GET /v1/payments/{id}/webhooks, newest first. */
export const WebhookDeliveryList = z.object({ items: z.array(WebhookDelivery) });
export type WebhookDeliveryList = z.infer<typeof WebhookDeliveryList>;
export const DeliveryIdParam = z.object({ deliveryId: UuidInput });
export const TestWebhookResult = z.object({
  id: z.string(),
  httpStatus: z.number().int().nullable(),
  durationMs: z.number(),
  error: z.string().nullable(),
  errorCode: ReasonCode.nullable(),
  errorParams: ReasonParams.nullable(),
});
export type TestWebhookResult = z.infer<typeof TestWebhookResult>;
