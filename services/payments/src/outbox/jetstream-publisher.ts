import type { JetStreamClient } from "@nats-io/jetstream";
import { publishWithCopies, type NatsConnection } from "@payaccept/platform";
import { paymentEventSubject, refundEventSubject, type FinalStatus, type RefundEventStatus } from "@payaccept/contracts";
import type { PublishEvent } from "./relay.ts";

/**
 * Publishes an outbox row with Nats-Msg-Id = its event id, so the stream keeps one copy per event;
 * copied while unanswered, so a stream leader lost to a hung node delays it by about its election.
 * The publish continues the trace the row was written in (its trace context).
 */
export function jetstreamPublisher(nc: NatsConnection, js: JetStreamClient, timeoutMs: number): PublishEvent {
  return async (row) => {
    const subject = row.kind === "refund" ? refundEventSubject(row.status as RefundEventStatus) : paymentEventSubject(row.status as FinalStatus);
    const ack = await publishWithCopies(nc, js, subject, row.payload, { msgID: row.eventId, timeoutMs, trace: row.traceContext });
    return { duplicate: ack.duplicate };
  };
}
