import { AckPolicy, DeliverPolicy, jetstream, type JsMsg } from "@nats-io/jetstream";
import { PAYMENT_EVENTS_SUBJECT_PREFIX, PAYMENTS_STREAM, PaymentEvent } from "@payaccept/contracts";
import { decodeOrTerm, ensureDurable, ensurePaymentsStream, runConsumerLoop, type Logger, type NatsConnection, type RunningLoop } from "@payaccept/platform";

export const BALANCE_DURABLE = "balance";
/**
 * Applying an event takes well under a millisecond, so an unacked event almost surely belongs to a
 * process that died; this is how long its events wait before they are delivered again.
 */
const ACK_WAIT_MS = 10_000;
const NS_PER_MS = 1_000_000;

export type EventSink = (event: PaymentEvent) => string;

/**
 * Acks a message only after the sink has committed it, so a crash before the ack means a
 * redelivery, which the ledger's UNIQUE key turns into a no-op. A sink that throws (storage error)
 * leaves the message to the loop, which offers it again later.
 */
export function handlePaymentEventMessage(m: JsMsg, sink: EventSink, log: Logger): void {
  const event = decodeOrTerm(m, PaymentEvent, "payment event", log);
  if (!event) return;
  const effect = sink(event);
  m.ack();
  log.debug({ paymentId: event.paymentId, status: event.status, effect, seq: m.seq }, "payment event applied");
}

/** The balance's durable pull consumer of every payment event, from the start of the stream. */
export async function consumePaymentEvents(nc: NatsConnection, sink: EventSink, log: Logger): Promise<RunningLoop> {
  const jsm = await ensurePaymentsStream(nc);
  await ensureDurable(jsm, PAYMENTS_STREAM, {
    durable_name: BALANCE_DURABLE,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    filter_subject: `${PAYMENT_EVENTS_SUBJECT_PREFIX}.>`,
    ack_wait: ACK_WAIT_MS * NS_PER_MS,
    max_ack_pending: 1000,
  }, log);
  const consumer = await jetstream(nc).consumers.get(PAYMENTS_STREAM, BALANCE_DURABLE);
  // One at a time: each event is a sub-millisecond SQLite transaction.
  return runConsumerLoop(consumer, { name: BALANCE_DURABLE, concurrency: 1, handle: (m) => handlePaymentEventMessage(m, sink, log), log });
}
