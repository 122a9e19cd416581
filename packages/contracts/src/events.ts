import { z } from "zod";
import { FinalStatus, IsoDateTime, PaymentMethod, Uuid } from "./primitives.ts";

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
  /** The X-Request-Id of the API request that caused the change, when one did (a cancel, a refund). */
  requestId: z.string().optional(),
});
export type PaymentEvent = z.infer<typeof PaymentEvent>;
