import { AckPolicy, DeliverPolicy, jetstream, type JsMsg } from "@nats-io/jetstream";
import { PAYMENT_EVENTS_SUBJECT_PREFIX, PAYMENTS_STREAM, PaymentEvent } from "@payaccept/contracts";
import { ensurePaymentsStream, type Logger, type NatsConnection } from "@payaccept/platform";

export const BALANCE_DURABLE = "balance";
/** An event that failed to apply (a storage error) is offered again after this pause. */
const RETRY_DELAY_MS = 5000;
/**
 * Applying an event takes well under a millisecond, so an unacked event almost surely belongs to a
 * process that died; this is how long its events wait before they are delivered again.
 */
const ACK_WAIT_MS = 10_000;
const NS_PER_MS = 1_000_000;

export type EventSink = (event: PaymentEvent) => string;

/**
 * Acks a message only after the sink has committed it, so a crash before the ack means a
 * redelivery, which the ledger's UNIQUE key turns into a no-op. A message that does not match
 * the event contract can never be applied and is terminated rather than retried forever.
 */
export function handlePaymentEventMessage(m: JsMsg, sink: EventSink, log: Logger): void {
  let body: unknown;
  try {
    body = m.json();
  } catch {
    body = undefined;
  }
  const parsed = PaymentEvent.safeParse(body);
  if (!parsed.success) {
    log.error({ subject: m.subject, seq: m.seq, issues: parsed.error?.issues }, "payment event does not match its contract; terminated");
    m.term("invalid payment event");
    return;
  }
  const event = parsed.data;
  try {
    const effect = sink(event);
    m.ack();
    log.debug({ paymentId: event.paymentId, status: event.status, effect, seq: m.seq }, "payment event applied");
  } catch (err) {
    log.error({ err, paymentId: event.paymentId, status: event.status }, "payment event not applied; will retry");
    m.nak(RETRY_DELAY_MS);
  }
}

/** ended resolves when the loop stops, by stop() or on its own (consumer deleted, connection closed). */
export type RunningConsumer = { isActive: () => boolean; ended: Promise<void>; stop: () => Promise<void> };

/** The balance's durable pull consumer of every payment event, from the start of the stream. */
export async function consumePaymentEvents(nc: NatsConnection, sink: EventSink, log: Logger): Promise<RunningConsumer> {
  const jsm = await ensurePaymentsStream(nc);
  // Idempotent while the config is unchanged, so replicas starting together are fine.
  await jsm.consumers.add(PAYMENTS_STREAM, {
    durable_name: BALANCE_DURABLE,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    filter_subject: `${PAYMENT_EVENTS_SUBJECT_PREFIX}.>`,
    ack_wait: ACK_WAIT_MS * NS_PER_MS,
    max_ack_pending: 1000,
  });
  const consumer = await jetstream(nc).consumers.get(PAYMENTS_STREAM, BALANCE_DURABLE);
  // Should the consumer be deleted, end the loop (and the process) rather than wait for someone to recreate it.
  const messages = await consumer.consume({ max_messages: 256, abort_on_missing_resource: true });
  let active = true;
  const done = (async () => {
    for await (const m of messages) handlePaymentEventMessage(m, sink, log);
  })()
    .catch((err) => log.error({ err }, "payment event consumer failed"))
    .finally(() => {
      active = false;
    });
  return {
    isActive: () => active,
    ended: done,
    stop: async () => {
      await messages.close();
      await done;
    },
  };
}
