import { AckPolicy, DeliverPolicy, type JsMsg } from "@nats-io/jetstream";
import { PAYMENTS_STREAM, PaymentEvent, paymentEventSubject, refundEventSubject, RefundEvent } from "@payaccept/contracts";
import { decodeOrTerm, durableConsumer, ensureDurable, ensurePaymentsStream, runConsumerLoop, type Logger, type NatsConnection, type RunningLoop } from "@payaccept/platform";
import { recordRefundedEvent, recordRefundEvent, recordSale, type Recorded } from "./recording.ts";
import type { ReceiptsStore } from "./store/receipts-store.ts";

export const RECEIPTS_DURABLE = "receipts";
/** Recording a receipt is one small transaction: an unacked event almost surely lost its process. */
const ACK_WAIT_MS = 10_000;
const NS_PER_MS = 1_000_000;

const SALE_SUBJECT = paymentEventSubject("SUCCESS");
const REFUNDED_SUBJECT = paymentEventSubject("REFUNDED");
const REFUND_SUCCEEDED_SUBJECT = refundEventSubject("SUCCEEDED");

/**
 * Records the receipt an event calls for and acks only after the commit: a crash before the ack
 * is a redelivery, which the receipts' UNIQUE dedupe key turns into a no-op. Other subjects of
 * the stream (payments FAILED, EXPIRED, CANCELED; refunds FAILED) are acked and left alone.
 */
export async function handleStreamMessage(m: JsMsg, store: ReceiptsStore, log: Logger, now: () => number): Promise<Recorded | "ignored" | undefined> {
  let recorded: Recorded | "ignored" = "ignored";
  let paymentId: string | undefined;
  if (m.subject === SALE_SUBJECT && !carriesReceipt(m)) recorded = "no-receipt";
  else if (m.subject === SALE_SUBJECT || m.subject === REFUNDED_SUBJECT) {
    const event = decodeOrTerm(m, PaymentEvent, "payment event", log);
    if (!event) return undefined;
    paymentId = event.paymentId;
    recorded = await (event.status === "SUCCESS" ? recordSale(store, event, now()) : recordRefundedEvent(store, event, now()));
  } else if (m.subject === REFUND_SUCCEEDED_SUBJECT) {
    const event = decodeOrTerm(m, RefundEvent, "refund event", log);
    if (!event) return undefined;
    paymentId = event.paymentId;
    recorded = await recordRefundEvent(store, event, now());
  }
  m.ack();
  if (recorded === "inconsistent") log.error({ paymentId, subject: m.subject, seq: m.seq }, "refund exceeds what the sale receipt has left; no refund receipt");
  else if (recorded !== "ignored") log.debug({ paymentId, subject: m.subject, seq: m.seq, recorded }, "stream event applied");
  return recorded;
}

/**
 * Whether a SUCCESS event's JSON has a `receipt`. One without makes nothing whatever the rest
 * says, so it is acked without checking the rest against the contract: most payments have no
 * receipt, and the check was most of receipts' CPU per event. Unreadable JSON counts as carrying
 * one, so that the full check terminates it and says why.
 */
function carriesReceipt(m: JsMsg): boolean {
  try {
    const body = m.json<unknown>();
    return typeof body !== "object" || body === null || (body as { receipt?: unknown }).receipt !== undefined;
  } catch {
    return true;
  }
}

/** The receipts' durable pull consumer of the whole PAYMENTS stream, from its start. */
export async function consumeStream(nc: NatsConnection, handle: (m: JsMsg) => Promise<void>, log: Logger): Promise<RunningLoop> {
  const jsm = await ensurePaymentsStream(nc, log);
  // No filter, one durable: a payment's refund events and its REFUNDED event must come in stream
  // order (docs/receipts.md, "Never two receipts"), which two durables would not keep.
  await ensureDurable(
    jsm,
    PAYMENTS_STREAM,
    { durable_name: RECEIPTS_DURABLE, filter_subject: undefined, ack_policy: AckPolicy.Explicit, deliver_policy: DeliverPolicy.All, ack_wait: ACK_WAIT_MS * NS_PER_MS, max_ack_pending: 1000 },
    log,
  );
  const consumer = await durableConsumer(nc, PAYMENTS_STREAM, RECEIPTS_DURABLE, log);
  // One at a time: a refund receipt depends on the receipts before it, in stream order.
  return runConsumerLoop(consumer, { name: RECEIPTS_DURABLE, concurrency: 1, handle, log });
}
