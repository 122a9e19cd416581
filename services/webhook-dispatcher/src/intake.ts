import type { JsMsg } from "@nats-io/jetstream";
import { PaymentEvent, PayoutEvent, payoutWebhookStatus, type ShopRecord } from "@payaccept/contracts";
import { Batcher, decodeOrTerm, traceCarrier, type Logger, type TraceCarrier } from "@payaccept/platform";
import type { DeliveryStore, NewDelivery } from "./store/delivery-store.ts";
import { serializePayoutWebhookBody, serializeWebhookBody } from "./webhook-body.ts";

function newDelivery(event: PaymentEvent, now: number, trace: TraceCarrier | undefined): NewDelivery {
  return {
    id: Bun.randomUUIDv7(),
    shopId: event.shopId,
    paymentId: event.paymentId,
    status: event.status,
    orderId: event.orderId,
    body: serializeWebhookBody(event),
    occurredAt: Date.parse(event.occurredAt),
    createdAt: now,
    traceContext: trace,
  };
}

/**
 * Records payment events as deliveries in one commit, each with the trace context its message was
 * consumed in (`traces`, by index). The UNIQUE (payment id, status) key makes a
 * redelivered or re-published event a no-op, also a second copy in the same call: false then.
 */
export function recordPaymentEvents(store: DeliveryStore, events: PaymentEvent[], now: number, traces: (TraceCarrier | undefined)[] = []): Promise<boolean[]> {
  return store.insertDeliveries(events.map((e, i) => newDelivery(e, now, traces[i])));
}

/** Messages recorded together at most; the intake's pull (its consumer loop's concurrency) is this size. */
export const INTAKE_BATCH = 256;

/** An event to record, its stream sequence (for the batch's log line) and the trace context of its message's consumer span. */
export type IntakeItem = { event: PaymentEvent; seq: number; trace?: TraceCarrier };

/**
 * The events handed over in one turn of the event loop (a pull's worth), recorded in one
 * transaction by the platform's Batcher: one batch at a time, in stream order, so a batch costs one
 * commit instead of one per event. A batch that fails is recorded again event by event, so an event
 * the store refuses fails alone and the rest of its batch is kept. The first attempt series is
 * published by the relay (onRecorded), which also picks up rows a crash left unpublished.
 */
export function paymentEventRecorder(deps: { store: DeliveryStore; now: () => number; log: Logger; onRecorded: () => void }) {
  const batcher = new Batcher(async (items: IntakeItem[]) => {
    const created = await recordPaymentEvents(deps.store, items.map((i) => i.event), deps.now(), items.map((i) => i.trace));
    const recorded = created.filter(Boolean).length;
    deps.log.info({ events: items.length, created: recorded, firstSeq: items[0]!.seq, lastSeq: items.at(-1)!.seq }, "payment events recorded");
    if (recorded > 0) deps.onRecorded();
    return created;
  }, INTAKE_BATCH);
  return (item: IntakeItem): Promise<boolean> => batcher.add(item);
}

/**
 * The intake consumer's handler, one call per message: acks only after the event's batch has
 * committed, so the payment stream's consumer never waits on a merchant's endpoint and a crash
 * before the ack means a redelivery, which the UNIQUE key turns into a no-op. A failed record
 * rejects: the consumer loop naks the message for a later retry.
 */
export async function handlePaymentEventMessage(m: JsMsg, record: (item: IntakeItem) => Promise<boolean>, log: Logger): Promise<void> {
  const event = decodeOrTerm(m, PaymentEvent, "payment event", log);
  if (!event) return;
  const created = await record({ event, seq: m.seq, trace: traceCarrier() });
  m.ack();
  log.debug({ requestId: event.requestId, paymentId: event.paymentId, status: event.status, shopId: event.shopId, created, seq: m.seq }, "payment event recorded");
}

/**
 * A payout event's deliveries (docs/webhooks.md, "Payouts"): one to every live shop of the
 * account, sandbox shops aside (a payout is real money), each signed with its own secret and
 * keyed (payout id, status, shop) like a payment's, so a redelivered event adds none. A shop
 * without a webhook URL gets its delivery all the same, unsent, as a payment's would be.
 */
export function payoutDeliveries(event: PayoutEvent, shops: Iterable<ShopRecord>, now: number, trace: TraceCarrier | undefined): NewDelivery[] {
  const body = serializePayoutWebhookBody(event);
  const delivery = (shopId: string): NewDelivery => ({
    id: Bun.randomUUIDv7(),
    shopId,
    paymentId: event.payout.id,
    status: payoutWebhookStatus(event.status),
    orderId: event.payout.id,
    body,
    occurredAt: Date.parse(event.occurredAt),
    createdAt: now,
    traceContext: trace,
  });
  return [...shops].filter((s) => s.accountId === event.accountId && !s.sandbox).map((s) => delivery(s.shopId));
}

/** The payout events' consumer's handler, one call per message: its deliveries recorded, then the ack. */
export async function handlePayoutEventMessage(m: JsMsg, deps: { store: DeliveryStore; shops: () => Iterable<ShopRecord>; now: () => number; log: Logger; onRecorded: () => void }): Promise<void> {
  const event = decodeOrTerm(m, PayoutEvent, "payout event", deps.log);
  if (!event) return;
  const created = await deps.store.insertDeliveries(payoutDeliveries(event, deps.shops(), deps.now(), traceCarrier()));
  m.ack();
  if (created.some(Boolean)) deps.onRecorded();
  deps.log.info({ payoutId: event.payout.id, status: event.status, accountId: event.accountId, shops: created.length, created: created.filter(Boolean).length, seq: m.seq }, "payout event recorded");
}
