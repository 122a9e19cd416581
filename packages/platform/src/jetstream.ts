import { jetstreamManager, RetentionPolicy, StorageType, type JetStreamManager } from "@nats-io/jetstream";
import { Kvm, type KV } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import { DIRECTORY_BUCKET, PAYMENTS_STREAM, PAYMENT_EVENTS_SUBJECT_PREFIX, REFUND_EVENTS_SUBJECT_PREFIX } from "@payaccept/contracts";
import { commonEnv, parseConfig } from "./config.ts";

const replicas = () => parseConfig({ NATS_REPLICAS: commonEnv.NATS_REPLICAS }).NATS_REPLICAS;

/**
 * Creates the payment-event stream if it does not exist. Every service that touches it calls
 * this with the same config, so start order does not matter.
 */
export function ensurePaymentsStream(nc: NatsConnection): Promise<JetStreamManager> {
  return untilItWorks(() => addPaymentsStream(nc));
}

/** Payment events and refund events (RefundEvent). */
const PAYMENTS_STREAM_SUBJECTS = [`${PAYMENT_EVENTS_SUBJECT_PREFIX}.>`, `${REFUND_EVENTS_SUBJECT_PREFIX}.>`];

async function addPaymentsStream(nc: NatsConnection): Promise<JetStreamManager> {
  const jsm = await jetstreamManager(nc);
  try {
    const info = await jsm.streams.info(PAYMENTS_STREAM);
    // A stream created before refund events existed gains their subjects in place.
    const missing = PAYMENTS_STREAM_SUBJECTS.filter((s) => !info.config.subjects?.includes(s));
    if (missing.length > 0) await jsm.streams.update(PAYMENTS_STREAM, { subjects: [...(info.config.subjects ?? []), ...missing] });
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
  }
  return jsm;
}

/** The directory KV bucket (history 1; the dashboard service writes, everyone else reads). */
export function openDirectoryBucket(nc: NatsConnection): Promise<KV> {
  return untilItWorks(() => new Kvm(nc).create(DIRECTORY_BUCKET, { history: 1, replicas: replicas() }));
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
