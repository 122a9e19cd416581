import type { JsMsg } from "@nats-io/jetstream";
import { PaymentEvent } from "@payaccept/contracts";
import { decodeOrTerm, type Logger } from "@payaccept/platform";
import type { DeliveryStore } from "./store/delivery-store.ts";
import { serializeWebhookBody } from "./webhook-body.ts";

/**
 * Records a payment event as a delivery. The UNIQUE (payment id, status) key makes a redelivered
 * or re-published event a no-op; false then.
 */
export function recordPaymentEvent(store: DeliveryStore, event: PaymentEvent, now: number): boolean {
  return store.insertDelivery({
    id: Bun.randomUUIDv7(),
    shopId: event.shopId,
    paymentId: event.paymentId,
    status: event.status,
    orderId: event.orderId,
    body: serializeWebhookBody(event),
    occurredAt: Date.parse(event.occurredAt),
    createdAt: now,
  });
}

/**
 * The intake consumer's handler: acked as soon as the delivery row is committed, so the payment
 * stream's consumer never waits on a merchant's endpoint. The first attempt series is published
 * by the relay (onRecorded), which also picks up rows a crash left unpublished.
 */
export function handlePaymentEventMessage(
  m: JsMsg,
  deps: { store: DeliveryStore; now: () => number; log: Logger; onRecorded: () => void },
): void {
  const event = decodeOrTerm(m, PaymentEvent, "payment event", deps.log);
  if (!event) return;
  const created = recordPaymentEvent(deps.store, event, deps.now());
  m.ack();
  deps.log.info({ paymentId: event.paymentId, status: event.status, shopId: event.shopId, created, seq: m.seq }, "payment event recorded");
  if (created) deps.onRecorded();
}
