import { z } from "zod";
import { FinalStatus, IsoDateTime, PaymentMethod, Uuid } from "./primitives.ts";
import { ReceiptData } from "./receipts.ts";

/** JetStream stream of payment events (final-status transitions), written by the payments outbox relay. */
export const PAYMENTS_STREAM = "PAYMENTS";
export const PAYMENT_EVENTS_SUBJECT_PREFIX = "payments.events";
export const paymentEventSubject = (status: FinalStatus) => `${PAYMENT_EVENTS_SUBJECT_PREFIX}.${status}`;
/** Nats-Msg-Id and the consumers' idempotency key. */
export const paymentEventId = (paymentId: string, status: FinalStatus) => `${paymentId}:${status}`;

export const PaymentEvent = z.object({
  eventId: z.string(),
  paymentId: Uuid,
  shopId: z.string(),
  accountId: z.string(),
  orderId: z.string(),
  status: FinalStatus,
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
  /** The payment's fiscal receipt (defaults applied) when it was created with one: the receipts service's input. */
  receipt: ReceiptData.optional(),
});
export type PaymentEvent = z.infer<typeof PaymentEvent>;

/** Every succeeded refund, partial or full (pinned contract of the refunds work). */
export const REFUND_EVENTS_SUBJECT_PREFIX = "payments.refunds";
export const REFUND_SUCCEEDED_SUBJECT = `${REFUND_EVENTS_SUBJECT_PREFIX}.SUCCEEDED`;
/** Nats-Msg-Id of a RefundEvent. */
export const refundEventId = (refundId: string) => `refund:${refundId}`;

export const RefundEvent = z.object({
  eventId: z.string(),
  refundId: z.string(),
  paymentId: Uuid,
  shopId: z.string(),
  accountId: z.string(),
  orderId: z.string(),
  /** This refund. */
  amountKopecks: z.number().int(),
  /** Every succeeded refund of the payment so far, this one included. */
  refundedTotalKopecks: z.number().int(),
  paymentAmountKopecks: z.number().int(),
  isTest: z.boolean(),
  reason: z.string().nullable(),
  occurredAt: IsoDateTime,
  requestId: z.string().optional(),
});
export type RefundEvent = z.infer<typeof RefundEvent>;
