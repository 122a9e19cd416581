import { jetstream, jetstreamManager, RetentionPolicy, StorageType, type JetStreamManager } from "@nats-io/jetstream";
import { Kvm, type KV } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import { DIRECTORY_BUCKET, IDEMPOTENCY_BUCKET, IDEMPOTENCY_TTL_MS, PAYMENTS_STREAM, PAYMENT_EVENTS_SUBJECT_PREFIX } from "@payaccept/contracts";
import { commonEnv, parseConfig } from "./config.ts";

const replicas = () => parseConfig({ NATS_REPLICAS: commonEnv.NATS_REPLICAS }).NATS_REPLICAS;

/**
 * Creates the payment-event stream if it does not exist. Every service that touches it calls
 * this with the same config, so start order does not matter.
 */
export function ensurePaymentsStream(nc: NatsConnection): Promise<JetStreamManager> {
  return untilItWorks(() => addPaymentsStream(nc));
}

async function addPaymentsStream(nc: NatsConnection): Promise<JetStreamManager> {
  const jsm = await jetstreamManager(nc);
  try {
    await jsm.streams.info(PAYMENTS_STREAM);
  } catch {
    try {
      await jsm.streams.add({
        name: PAYMENTS_STREAM,
        subjects: [`${PAYMENT_EVENTS_SUBJECT_PREFIX}.>`],
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
  }
  return jsm;
}

/** The directory KV bucket (history 1; the dashboard service writes, everyone else reads). */
export function openDirectoryBucket(nc: NatsConnection): Promise<KV> {
  return untilItWorks(() => new Kvm(nc).create(DIRECTORY_BUCKET, { history: 1, replicas: replicas() }));
}

/**
 * The API's idempotency keys (history 1, entries expire a day after their last write); every
 * gateway replica writes. Its operations are bounded by timeoutMs like the requests they guard.
 */
export function openIdempotencyBucket(nc: NatsConnection, timeoutMs: number): Promise<KV> {
  return untilItWorks(() =>
    new Kvm(jetstream(nc, { timeout: timeoutMs })).create(IDEMPOTENCY_BUCKET, { history: 1, replicas: replicas(), ttl: IDEMPOTENCY_TTL_MS }),
  );
}

/**
 * Start-up calls to JetStream are retried for a while instead of ending the process: on a cluster
 * that has just formed (or lost a node) the first requests can time out until a leader is elected.
 */
async function untilItWorks<T>(fn: () => Promise<T>, attempts = 20): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await fn();
    } catch (e) {
      if (i >= attempts) throw e;
      await Bun.sleep(Math.min(250 * i, 3000));
    }
  }
}
