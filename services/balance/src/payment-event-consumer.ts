import { AckPolicy, DeliverPolicy, type JsMsg } from "@nats-io/jetstream";
import { PAYMENT_EVENTS_SUBJECT_PREFIX, PAYMENTS_STREAM, PaymentEvent, REFUND_EVENTS_SUBJECT_PREFIX, RefundEvent } from "@payaccept/contracts";
import { decodeOrTerm, durableConsumer, ensureDurable, ensurePaymentsStream, runConsumerLoop, type Logger, type NatsConnection, type RunningLoop } from "@payaccept/platform";
import type { z } from "zod";

export const BALANCE_DURABLE = "balance";
export const BALANCE_REFUNDS_DURABLE = "balance-refunds";
const NS_PER_MS = 1_000_000;

/** One of the balance's durable consumers of the PAYMENTS stream: which events, under which name. */
type EventFeed<S extends z.ZodType> = { durable: string; filterSubject: string; schema: S; what: string };

export const paymentEventFeed: EventFeed<typeof PaymentEvent> = {
  durable: BALANCE_DURABLE,
  filterSubject: `${PAYMENT_EVENTS_SUBJECT_PREFIX}.>`,
  schema: PaymentEvent,
  what: "payment event",
};
export const refundEventFeed: EventFeed<typeof RefundEvent> = {
  durable: BALANCE_REFUNDS_DURABLE,
  filterSubject: `${REFUND_EVENTS_SUBJECT_PREFIX}.>`,
  schema: RefundEvent,
  what: "refund event",
};

export type EventSink<E> = (event: E) => Promise<string>;

/**
 * Acks a message only after the sink has committed it, so a crash before the ack means a
 * redelivery, which the ledger's UNIQUE key turns into a no-op. A sink that throws (storage error)
 * leaves the message to the loop, which offers it again later.
 */
export async function handleEventMessage<S extends z.ZodType>(m: JsMsg, feed: EventFeed<S>, sink: EventSink<z.output<S>>, log: Logger): Promise<void> {
  const event = decodeOrTerm(m, feed.schema, feed.what, log);
  if (!event) return;
  const effect = await sink(event);
  m.ack();
  log.debug({ subject: m.subject, effect, seq: m.seq }, `${feed.what} applied`);
}

/**
 * Payment events applied together at most (applyPaymentEvents: one transaction), and so handed
 * to the sink at once: the payment consumer's pull and concurrency are this size.
 */
export const PAYMENT_EVENT_BATCH = 256;

/**
 * A durable pull consumer of the feed's events, from the start of the stream. `concurrency` events
 * are with the sink at once: 1, each its own short transaction (refund ends), or a batch's worth
 * for a sink that gathers them (payment events, Batcher). `ackWaitMs` (BALANCE_ACK_WAIT) is how
 * long a message not acked waits before it is delivered again.
 */
export async function consumeEvents<S extends z.ZodType>(
  nc: NatsConnection,
  feed: EventFeed<S>,
  sink: EventSink<z.output<S>>,
  log: Logger,
  opts: { ackWaitMs: number; concurrency?: number },
): Promise<RunningLoop> {
  const { ackWaitMs, concurrency = 1 } = opts;
  const jsm = await ensurePaymentsStream(nc, log);
  await ensureDurable(jsm, PAYMENTS_STREAM, {
    durable_name: feed.durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    filter_subject: feed.filterSubject,
    ack_wait: ackWaitMs * NS_PER_MS,
    max_ack_pending: 1000,
  }, log);
  const consumer = await durableConsumer(nc, PAYMENTS_STREAM, feed.durable, log);
  return runConsumerLoop(consumer, { name: feed.durable, concurrency, handle: (m) => handleEventMessage(m, feed, sink, log), log });
}
