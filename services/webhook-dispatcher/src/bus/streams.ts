import {
  AckPolicy,
  DeliverPolicy,
  jetstream,
  JetStreamApiCodes,
  JetStreamApiError,
  RetentionPolicy,
  StorageType,
  type JetStreamClient,
  type JetStreamManager,
} from "@nats-io/jetstream";
import { PAYMENT_EVENTS_SUBJECT_PREFIX, PAYMENTS_STREAM, PAYOUT_EVENTS_SUBJECT_PREFIX, PAYOUTS_STREAM } from "@payaccept/contracts";
import { encodeJson, ensureDurable, ensurePaymentsStream, ensurePayoutsStream, publishWithCopies, untilItWorks, type Logger, type NatsConnection, type TraceCarrier } from "@payaccept/platform";
import { z } from "zod";

/**
 * The dispatcher's own work-queue stream: one message per attempt series of a delivery. Its durable
 * consumer's redelivery is the retry schedule (nak with the schedule's delay), so the schedule
 * survives restarts of the dispatcher; an acked message (series finished) leaves the stream.
 */
export const DISPATCH_STREAM = "WEBHOOKS";
export const DISPATCH_SUBJECT = "webhooks.dispatch";
export const DURABLE = "webhook-dispatcher";

export const DispatchCommand = z.object({ deliveryId: z.string(), series: z.number().int().min(1) });
export type DispatchCommand = z.infer<typeof DispatchCommand>;

const NS_PER_MS = 1_000_000;
/** Long enough for a restarted dispatcher to re-publish a series it had not marked as queued. */
const DUPLICATE_WINDOW_MS = 24 * 3600 * 1000;
/** ackWaitMs: the dispatch consumer's (WEBHOOK_ACK_WAIT); intakeAckWaitMs: the intake consumer's (WEBHOOK_INTAKE_ACK_WAIT). */
export type StreamSettings = { replicas: number; ackWaitMs: number; intakeAckWaitMs: number; maxAckPending: number; log: Logger };

/**
 * Creates what is missing. onDispatchStreamMissing runs before the dispatch stream is created (a
 * first start, or NATS lost its store): every pending series must then be published again, and
 * marking them so first means a crash right after the creation cannot forget them.
 */
export async function ensureStreams(nc: NatsConnection, s: StreamSettings, onDispatchStreamMissing: () => Promise<void>): Promise<JetStreamClient> {
  const jsm = await ensurePaymentsStream(nc, s.log);
  await untilItWorks(`stream ${DISPATCH_STREAM}`, () => ensureDispatchStream(jsm, s.replicas, onDispatchStreamMissing), s.log);
  await ensurePayoutsStream(nc, s.log);
  // The intakes: payment events, and payout events in their own stream (the balance's outbox) with,
  // nats-server 2.9 taking one filter, their own durable.
  const intake = (stream: string, subjectPrefix: string) =>
    ensureDurable(jsm, stream, {
      durable_name: DURABLE,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      filter_subject: `${subjectPrefix}.>`,
      ack_wait: s.intakeAckWaitMs * NS_PER_MS,
      max_ack_pending: 1000,
      max_deliver: -1,
    }, s.log);
  await intake(PAYOUTS_STREAM, PAYOUT_EVENTS_SUBJECT_PREFIX);
  await intake(PAYMENTS_STREAM, PAYMENT_EVENTS_SUBJECT_PREFIX);
  await ensureDurable(jsm, DISPATCH_STREAM, {
    durable_name: DURABLE,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    filter_subject: DISPATCH_SUBJECT,
    ack_wait: s.ackWaitMs * NS_PER_MS,
    // Every delivery waiting for its next attempt is unacked; a small cap would make all shops wait.
    max_ack_pending: s.maxAckPending,
    // Deferrals of a busy shop are redeliveries too; attempts are counted in the store instead.
    max_deliver: -1,
  }, s.log);
  return jetstream(nc);
}

/** Only a stream JetStream says is not there is missing: a request that timed out is tried again (untilItWorks), not taken for a lost stream. */
const isStreamNotFound = (e: unknown) => e instanceof JetStreamApiError && e.code === JetStreamApiCodes.StreamNotFound;

async function ensureDispatchStream(jsm: JetStreamManager, replicas: number, onMissing: () => Promise<void>): Promise<void> {
  try {
    await jsm.streams.info(DISPATCH_STREAM);
    return;
  } catch (e) {
    if (!isStreamNotFound(e)) throw e;
    await onMissing();
  }
  try {
    await jsm.streams.add({
      name: DISPATCH_STREAM,
      subjects: [DISPATCH_SUBJECT],
      retention: RetentionPolicy.Workqueue,
      storage: StorageType.File,
      num_replicas: replicas,
      duplicate_window: DUPLICATE_WINDOW_MS * NS_PER_MS,
    });
  } catch (e) {
    // Created meanwhile by another process starting at the same moment.
    await jsm.streams.info(DISPATCH_STREAM).catch(() => {
      throw e;
    });
  }
}

/**
 * Publishes a series' dispatch message; the id makes a re-publish after a crash, or a copy sent
 * while the stream's leader is being replaced (publishWithCopies), a no-op.
 */
export function dispatchPublisher(nc: NatsConnection, js: JetStreamClient, timeoutMs: number) {
  return async (cmd: DispatchCommand, trace: TraceCarrier | null): Promise<void> => {
    await publishWithCopies(nc, js, DISPATCH_SUBJECT, encodeJson(cmd), { msgID: `${cmd.deliveryId}:${cmd.series}`, timeoutMs, trace });
  };
}
