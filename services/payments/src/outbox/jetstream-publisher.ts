import type { JetStreamClient } from "@nats-io/jetstream";
import { paymentEventSubject } from "@payaccept/contracts";
import type { PublishEvent } from "./relay.ts";

/** Publishes an outbox row with Nats-Msg-Id = its event id, so the stream keeps one copy per event. */
export function jetstreamPublisher(js: JetStreamClient, timeoutMs: number): PublishEvent {
  return async (row) => {
    const ack = await js.publish(paymentEventSubject(row.status), row.payload, { msgID: row.eventId, timeout: timeoutMs });
    return { duplicate: ack.duplicate };
  };
}
