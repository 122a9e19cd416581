import type { JetStreamClient } from "@nats-io/jetstream";
import { paymentEventSubject, refundEventSubject, type FinalStatus, type RefundEventStatus } from "@payaccept/contracts";
import type { PublishEvent } from "./relay.ts";

/** Publishes an outbox row with Nats-Msg-Id = its event id, so the stream keeps one copy per event. */
export function jetstreamPublisher(js: JetStreamClient, timeoutMs: number): PublishEvent {
  return async (row) => {
    const subject = row.kind === "refund" ? refundEventSubject(row.status as RefundEventStatus) : paymentEventSubject(row.status as FinalStatus);
    const ack = await js.publish(subject, row.payload, { msgID: row.eventId, timeout: timeoutMs });
    return { duplicate: ack.duplicate };
  };
}
