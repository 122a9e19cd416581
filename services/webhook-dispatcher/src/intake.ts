import type { JsMsg } from "@nats-io/jetstream";
import { PaymentEvent } from "@payaccept/contracts";
import { decodeOrTerm, type Logger } from "@payaccept/platform";
import type { DeliveryStore, NewDelivery } from "./store/delivery-store.ts";
import { serializeWebhookBody } from "./webhook-body.ts";

function newDelivery(event: PaymentEvent, now: number): NewDelivery {
  return {
    id: Bun.randomUUIDv7(),
    shopId: event.shopId,
    paymentId: event.paymentId,
    status: event.status,
    orderId: event.orderId,
    body: serializeWebhookBody(event),
    occurredAt: Date.parse(event.occurredAt),
    createdAt: now,
  };
}

/**
 * Records a payment event as a delivery. The UNIQUE (payment id, status) key makes a redelivered
 * or re-published event a no-op; false then.
 */
export async function recordPaymentEvent(store: DeliveryStore, event: PaymentEvent, now: number): Promise<boolean> {
  const [created] = await store.insertDeliveries([newDelivery(event, now)]);
  return created!;
}

/** Messages recorded together at most; the intake's pull (its consumer loop's concurrency) is this size. */
export const INTAKE_BATCH = 256;

/**
 * The intake consumer's handler, one call per message: the messages handed over in one turn of
 * the event loop (a pull's worth) are recorded in one transaction and acked only after
 * it commits, so the payment stream's consumer never waits on a merchant's endpoint and a batch
 * costs one commit instead of one per event. The UNIQUE (payment id, status) key keeps it
 * idempotent, also for two copies in one batch. The first attempt series is published by the
 * relay (onRecorded), which also picks up rows a crash left unpublished. A failed commit rejects
 * every handler of the batch: the consumer loop naks them for a later retry.
 */
export function createPaymentEventIntake(deps: { store: DeliveryStore; now: () => number; log: Logger; onRecorded: () => void }) {
  type Pending = { m: JsMsg; resolve: () => void; reject: (err: unknown) => void };
  let pending: Pending[] = [];
  let scheduled = false;

  async function flush(): Promise<void> {
    scheduled = false;
    const batch = pending;
    pending = [];
    const valid: { p: Pending; event: PaymentEvent }[] = [];
    for (const p of batch) {
      const event = decodeOrTerm(p.m, PaymentEvent, "payment event", deps.log);
      if (event) valid.push({ p, event });
      else p.resolve();
    }
    if (valid.length === 0) return;
    let created: boolean[];
    try {
      const now = deps.now();
      created = await deps.store.insertDeliveries(valid.map((v) => newDelivery(v.event, now)));
    } catch (err) {
      for (const v of valid) v.p.reject(err);
      return;
    }
    let recorded = 0;
    for (const [i, v] of valid.entries()) {
      v.p.m.ack();
      if (created[i]) recorded++;
      deps.log.debug(
        { requestId: v.event.requestId, paymentId: v.event.paymentId, status: v.event.status, shopId: v.event.shopId, created: created[i], seq: v.p.m.seq },
        "payment event recorded",
      );
      v.p.resolve();
    }
    deps.log.info(
      { events: valid.length, created: recorded, firstSeq: valid[0]!.p.m.seq, lastSeq: valid.at(-1)!.p.m.seq },
      "payment events recorded",
    );
    if (recorded > 0) deps.onRecorded();
  }

  return {
    handle(m: JsMsg): Promise<void> {
      return new Promise<void>((resolve, reject) => {
        pending.push({ m, resolve, reject });
        if (pending.length >= INTAKE_BATCH) void flush();
        else if (!scheduled) {
          scheduled = true;
          setImmediate(() => void flush());
        }
      });
    },
  };
}
