import { jetstream, jetstreamManager, RetentionPolicy, StorageType, type Consumer, type JetStreamManager, type StreamInfo } from "@nats-io/jetstream";
import { Kvm, type KV } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import {
  AUDIT_STREAM,
  AUDIT_SUBJECT_PREFIX,
  DIRECTORY_BUCKET,
  IDEMPOTENCY_BUCKET,
  IDEMPOTENCY_TTL_MS,
  PAYMENTS_STREAM,
  PAYMENT_EVENTS_SUBJECT_PREFIX,
  PAYOUT_EVENTS_SUBJECT_PREFIX,
  PAYOUTS_STREAM,
  REFUND_EVENTS_SUBJECT_PREFIX,
} from "@payaccept/contracts";
import { commonEnv, parseConfig } from "./config.ts";
import type { Logger } from "./log.ts";
import { retrying, type RetryPolicy } from "./retry.ts";

const replicas = () => parseConfig({ NATS_REPLICAS: commonEnv.NATS_REPLICAS }).NATS_REPLICAS;

/** Payment events and refund events; each consumer filters on its own prefix. */
const PAYMENTS_STREAM_SUBJECTS = [`${PAYMENT_EVENTS_SUBJECT_PREFIX}.>`, `${REFUND_EVENTS_SUBJECT_PREFIX}.>`];

/**
 * Creates the payment-event stream if it does not exist, and adds the subjects a stream made by an
 * earlier version lacks. Every service that touches it calls this with the same config, so start
 * order does not matter.
 */
export function ensurePaymentsStream(nc: NatsConnection, log?: Logger): Promise<JetStreamManager> {
  return untilItWorks(`stream ${PAYMENTS_STREAM}`, () => addPaymentsStream(nc), log);
}

async function addPaymentsStream(nc: NatsConnection): Promise<JetStreamManager> {
  const jsm = await jetstreamManager(nc);
  let info: StreamInfo;
  try {
    info = await jsm.streams.info(PAYMENTS_STREAM);
  } catch {
    try {
      await jsm.streams.add({
        name: PAYMENTS_STREAM,
        subjects: PAYMENTS_STREAM_SUBJECTS,
        retention: RetentionPolicy.Limits,
        storage: StorageType.File,
        num_replicas: replicas(),
        max_age: 90 * 24 * 3600 * 1e9,
        duplicate_window: 10 * 60 * 1e9,
      });
    } catch (e) {
      // A concurrent creator won the race: fine as long as the stream now exists.
      await jsm.streams.info(PAYMENTS_STREAM).catch(() => {
        throw e;
      });
    }
    return jsm;
  }
  const subjects = info.config.subjects ?? [];
  const missing = PAYMENTS_STREAM_SUBJECTS.filter((s) => !subjects.includes(s));
  if (missing.length > 0) await jsm.streams.update(PAYMENTS_STREAM, { ...info.config, subjects: [...subjects, ...missing] });
  return jsm;
}

/**
 * The audit events' stream (docs/directory.md, "Audit log"): every service that records creates
 * it when missing, the directory reads it into its table. It is only the way there, so it keeps
 * a month (a directory down for weeks loses nothing); the duplicate window covers an AuditTrail's
 * retries of one event (Nats-Msg-Id = the event's id), and the table's key every later copy.
 */
export function ensureAuditStream(nc: NatsConnection, log?: Logger): Promise<JetStreamManager> {
  return ensureStream(nc, { name: AUDIT_STREAM, subjects: [`${AUDIT_SUBJECT_PREFIX}.>`], maxAgeDays: 30, duplicateWindowS: 3600 }, log);
}

/**
 * The payout events' stream (docs/balance.md, "Payout statuses"): the balance's outbox publishes to
 * it, the webhook-dispatcher reads it; whichever starts first creates it. It keeps what the
 * payments' stream keeps (90 days), so a dispatcher down for a while still sends every payout's
 * webhook; the duplicate window covers a relay's retries (Nats-Msg-Id = the event's id).
 */
export function ensurePayoutsStream(nc: NatsConnection, log?: Logger): Promise<JetStreamManager> {
  return ensureStream(nc, { name: PAYOUTS_STREAM, subjects: [`${PAYOUT_EVENTS_SUBJECT_PREFIX}.>`], maxAgeDays: 90, duplicateWindowS: 600 }, log);
}

/** Creates a stream of ours when it is missing; one made already (by another service, another replica) is left as it is. */
function ensureStream(nc: NatsConnection, s: { name: string; subjects: string[]; maxAgeDays: number; duplicateWindowS: number }, log?: Logger): Promise<JetStreamManager> {
  return untilItWorks(`stream ${s.name}`, async () => {
    const jsm = await jetstreamManager(nc);
    const exists = await jsm.streams.info(s.name).then(
      () => true,
      () => false,
    );
    if (exists) return jsm;
    await jsm.streams
      .add({
        name: s.name,
        subjects: s.subjects,
        retention: RetentionPolicy.Limits,
        storage: StorageType.File,
        num_replicas: replicas(),
        max_age: s.maxAgeDays * 24 * 3600 * 1e9,
        duplicate_window: s.duplicateWindowS * 1e9,
      })
      // A concurrent creator won the race: fine as long as the stream now exists.
      .catch((e: unknown) => jsm.streams.info(s.name).catch(() => Promise.reject(e)));
    return jsm;
  }, log);
}

/**
 * How long a durable consumer's info request may go unanswered. nats.js asks for it before it
 * pulls again after a reconnect or two missed heartbeats, and when no leader answers yet (the
 * leader was on a node that hangs and is being replaced) it waits out this timeout and then about
 * one pull expiry more before it asks again: with the client's 5 s default, events waited in the
 * stream 2–5 s after the new leader was there. An answer takes milliseconds; a spurious timeout
 * only means one more try.
 */
const CONSUMER_API_TIMEOUT_MS = 1_500;

/** A durable consumer of `stream`, bound for runConsumerLoop (see CONSUMER_API_TIMEOUT_MS). */
export function durableConsumer(nc: NatsConnection, stream: string, durable: string, log?: Logger): Promise<Consumer> {
  return untilItWorks(`consumer ${durable} of ${stream}`, () => jetstream(nc, { timeout: CONSUMER_API_TIMEOUT_MS }).consumers.get(stream, durable), log);
}

/**
 * The directory KV bucket (history 1; the directory service writes, everyone else reads).
 * timeoutMs bounds each of its operations (the client's default otherwise). Reads are direct gets,
 * served by any replica: a reader's fallback read on a cache miss still answers while JetStream
 * has lost its quorum (tests/infra-cluster.test.ts).
 */
export function openDirectoryBucket(nc: NatsConnection, opts: { timeoutMs?: number; log?: Logger } = {}): Promise<KV> {
  const client = opts.timeoutMs === undefined ? nc : jetstream(nc, { timeout: opts.timeoutMs });
  return untilItWorks(`KV bucket ${DIRECTORY_BUCKET}`, () => new Kvm(client).create(DIRECTORY_BUCKET, { history: 1, replicas: replicas() }), opts.log);
}

/**
 * The directory bucket as its writer opens it: reads ask the stream's leader, not any replica. A
 * direct get is a queue-group request, and while a node hangs its peers still route a share of
 * them to the frozen replica, where they vanish (docs/nats.md, "A hung node and copies of a
 * call"); the directory reads an entry before each write and all of them in a resync, so with
 * direct gets a shop created during a freeze sometimes reached the bucket only when the node
 * resumed. Its writes need the leader (and a quorum) anyway, so this costs it no availability.
 * The bucket itself is created as for everyone (direct gets allowed): only this client reads otherwise.
 */
export async function openDirectoryBucketForWrites(nc: NatsConnection, timeoutMs: number): Promise<KV> {
  await openDirectoryBucket(nc, { timeoutMs });
  return new Kvm(jetstream(nc, { timeout: timeoutMs })).open(DIRECTORY_BUCKET, { allow_direct: false });
}

/**
 * The API's idempotency keys (history 1, entries expire a day after their last write); every
 * gateway replica writes. Its operations are bounded by timeoutMs like the requests they guard.
 * Creates the bucket when it is missing (NATS lost its store), binds to it otherwise; one try.
 */
export function idempotencyBucket(nc: NatsConnection, timeoutMs: number): Promise<KV> {
  return new Kvm(jetstream(nc, { timeout: timeoutMs })).create(IDEMPOTENCY_BUCKET, { history: 1, replicas: replicas(), ttl: IDEMPOTENCY_TTL_MS });
}

/** idempotencyBucket at start-up, retried while a new cluster elects its leaders. */
export function openIdempotencyBucket(nc: NatsConnection, timeoutMs: number, log?: Logger): Promise<KV> {
  return untilItWorks(`KV bucket ${IDEMPOTENCY_BUCKET}`, () => idempotencyBucket(nc, timeoutMs), log);
}

/**
 * Start-up calls to JetStream are retried for a while (about 40 s of pauses over 20 tries) instead
 * of ending the process: on a cluster that has just formed (or lost a node), or a busy host, the
 * first requests can time out until a leader is elected and answers (docs/nats.md, "At start").
 */
const STARTUP_RETRY: RetryPolicy = { baseMs: 250, capMs: 5_000, maxAttempts: 20 };

/**
 * A JetStream or KV call a service makes before it serves (a stream, a durable, a bucket), tried
 * by STARTUP_RETRY: each failed try is a warning naming `call`, and only a call still failing
 * once the budget is spent ends the start. Every start-time JetStream call goes through here.
 */
export function untilItWorks<T>(call: string, fn: () => Promise<T>, log?: Logger): Promise<T> {
  return retrying(STARTUP_RETRY, fn, {
    onRetry: (err, failures, retryInMs) => log?.warn({ call, err: (err as Error).message, failures, retryInMs }, "JetStream call at start failed; trying again"),
  });
}
