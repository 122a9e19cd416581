import { z } from "zod";
import { Payout, WebhookExtras } from "./api.ts";
import { FINAL_STATUSES, IsoDateTime, PaymentMethod, PayoutStatus, Uuid } from "./primitives.ts";
import { ReceiptData } from "./receipts.ts";

/**
 * What a payment event announces, and so what its webhook's `status` says: every final status
 * (§6); AUTHORIZED, a hold the buyer paid (a two-stage payment waits for the merchant's capture);
 * and the end of the method a payment saved, by its payer or its bank (PAYMENT_METHOD_REVOKED,
 * PAYMENT_METHOD_EXPIRED). The last three reach only merchants who asked for holds or saved
 * methods; each happens at most once per payment.
 */
export const PAYMENT_EVENT_STATUSES = [...FINAL_STATUSES, "AUTHORIZED", "PAYMENT_METHOD_REVOKED", "PAYMENT_METHOD_EXPIRED"] as const;
export const PaymentEventStatus = z.enum(PAYMENT_EVENT_STATUSES);
export type PaymentEventStatus = z.infer<typeof PaymentEventStatus>;
/** The events of a saved method's end, announced under the payment that saved it. */
export const METHOD_EVENT_STATUSES = ["PAYMENT_METHOD_REVOKED", "PAYMENT_METHOD_EXPIRED"] as const satisfies readonly PaymentEventStatus[];
export type MethodEventStatus = (typeof METHOD_EVENT_STATUSES)[number];

/** JetStream stream of payment events, written by the payments outbox relay. */
export const PAYMENTS_STREAM = "PAYMENTS";
export const PAYMENT_EVENTS_SUBJECT_PREFIX = "payments.events";
export const paymentEventSubject = (status: PaymentEventStatus) => `${PAYMENT_EVENTS_SUBJECT_PREFIX}.${status}`;
/** Nats-Msg-Id and the consumers' idempotency key. */
export const paymentEventId = (paymentId: string, status: PaymentEventStatus) => `${paymentId}:${status}`;

export const PaymentEvent = z.object({
  eventId: z.string(),
  paymentId: Uuid,
  shopId: z.string(),
  accountId: z.string(),
  orderId: z.string(),
  /** The payment's new status; for a method event, PAYMENT_METHOD_REVOKED or PAYMENT_METHOD_EXPIRED (the payment's own status is previousStatus). */
  status: PaymentEventStatus,
  previousStatus: z.string(),
  amountKopecks: z.number().int(),
  commissionKopecks: z.number().int(),
  method: PaymentMethod.nullable(),
  telegramId: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()).nullable(),
  isTest: z.boolean(),
  paidAt: IsoDateTime.nullable(),
  createdAt: IsoDateTime,
  occurredAt: IsoDateTime,
  /** The X-Request-Id of the API request that caused the change, when one did (a cancel, a refund). */
  requestId: z.string().optional(),
  /** The payment's fiscal receipt (defaults applied) when it was created with one: the receipts service's input. */
  receipt: ReceiptData.optional(),
  /** The payment's extras (saved method, charge, hold), appended to its webhook's body; absent when it uses none. */
  extras: WebhookExtras.optional(),
});
export type PaymentEvent = z.infer<typeof PaymentEvent>;

/**
 * A live payment's SUCCESS as the balance credits it: the fields of its PaymentEvent that move
 * money. Payments sends it with every refund hold (rpcs.balance.reserveRefund), because the hold
 * can reach the balance before the event does (the stream is asynchronous); the balance credits it
 * under the event's own key (paymentId, SUCCESS), so whichever comes first credits the receipt and
 * the other changes nothing (docs/balance.md, "A refund before its payment's event").
 */
export const PaymentCredit = PaymentEvent.pick({ shopId: true, amountKopecks: true, commissionKopecks: true, occurredAt: true }).extend({
  paidAt: IsoDateTime,
});
export type PaymentCredit = z.infer<typeof PaymentCredit>;

/**
 * Refund events share the PAYMENTS stream under their own prefix, so the payment-event consumers
 * (filtering on payments.events.>) never see them.
 */
export const REFUND_EVENTS_SUBJECT_PREFIX = "payments.refunds";
export const REFUND_EVENT_STATUSES = ["SUCCEEDED", "FAILED"] as const;
export type RefundEventStatus = (typeof REFUND_EVENT_STATUSES)[number];
export const refundEventSubject = (status: RefundEventStatus) => `${REFUND_EVENTS_SUBJECT_PREFIX}.${status}`;
/** Nats-Msg-Id of a refund's final event; a refund ends once, SUCCEEDED or FAILED. */
export const refundEventId = (refundId: string) => `refund:${refundId}`;

/**
 * A refund that ended: SUCCEEDED (partial or full; when it completes the payment, the payment's
 * REFUNDED PaymentEvent follows) or FAILED (nothing was refunded; the balance gives back what it held).
 */
export const RefundEvent = z.object({
  eventId: z.string(),
  refundId: Uuid,
  paymentId: Uuid,
  shopId: z.string(),
  accountId: z.string(),
  orderId: z.string(),
  status: z.enum(REFUND_EVENT_STATUSES),
  /** This refund's amount, returned to the buyer. */
  amountKopecks: z.number().int(),
  /** What this refund takes from the merchant's balance: its share of the payment's net receipt (docs/balance.md). */
  balanceKopecks: z.number().int(),
  /** The payment's SUCCEEDED refunds, this one included. */
  refundedTotalKopecks: z.number().int(),
  paymentAmountKopecks: z.number().int(),
  isTest: z.boolean(),
  reason: z.string().nullable(),
  failureReason: z.string().nullable(),
  occurredAt: IsoDateTime,
  requestId: z.string().optional(),
});
export type RefundEvent = z.infer<typeof RefundEvent>;

/**
 * Payout events: the balance's outbox publishes one per status a payout reaches (docs/balance.md,
 * "Payout statuses"), to a stream of its own; the webhook-dispatcher sends each to the account's
 * live shops (docs/webhooks.md, "Payouts").
 */
export const PAYOUTS_STREAM = "PAYOUTS";
export const PAYOUT_EVENTS_SUBJECT_PREFIX = "payouts.events";
export const payoutEventSubject = (status: PayoutStatus) => `${PAYOUT_EVENTS_SUBJECT_PREFIX}.${status}`;
/** Nats-Msg-Id and the consumers' idempotency key: a payout reaches each status once. */
export const payoutEventId = (payoutId: string, status: PayoutStatus) => `payout:${payoutId}:${status}`;
/** What a payout's webhook says in `status`: its own names, apart from the payments' (a receiver acks what it does not know, spec §6). */
export const payoutWebhookStatus = (status: PayoutStatus) => `PAYOUT_${status}`;

export const PayoutEvent = z.object({
  eventId: z.string(),
  accountId: z.string(),
  status: PayoutStatus,
  /** The payout as it stood when it reached this status. */
  payout: Payout,
  occurredAt: IsoDateTime,
});
export type PayoutEvent = z.infer<typeof PayoutEvent>;

/**
 * Core NATS (not the stream): which payments' API views (Payment, as rpcs.payments.get answers it)
 * changed in a commit, published by every payments process right after the commit and before the
 * write's own reply, plus an empty notice every PAYMENT_CHANGES_HEARTBEAT_MS. The gateway's read
 * model (docs/gateway.md, "Reads from the read model") drops those payments; `source` (one per
 * process) and `seq` (1, 2, 3… per source) let it see a lost notice, and the heartbeat a source
 * gone silent, and then it drops everything.
 */
export const PAYMENT_CHANGES_SUBJECT = "payments.v1.changes";
export const PAYMENT_CHANGES_HEARTBEAT_MS = 1000;
/**
 * The reply header by which a payments process names the source of its notices, in the replies
 * that introduce it to a caller (its first to each within a second). A payments reply that
 * introduces its process without it comes from a release that sends no notices.
 */
export const PAYMENT_CHANGES_SOURCE_HEADER = "Payaccept-Changes-Source";
export const PaymentChanges = z.object({ source: z.string(), seq: z.number().int().positive(), ids: z.array(z.string()) });
export type PaymentChanges = z.infer<typeof PaymentChanges>;
