import { JetStreamApiCodes, JetStreamApiError, type ConsumerConfig, type JetStreamManager } from "@nats-io/jetstream";
import { untilItWorks } from "./jetstream.ts";
import type { Logger } from "./log.ts";

/**
 * The settings of an existing durable that a deployment may change and the server lets us update
 * in place. The others (filter subject, deliver and ack policy) are the consumer's identity: a
 * change there is a new durable, not an update (nats-server 2.9 also has one filter subject only).
 */
const UPDATABLE = ["ack_wait", "max_ack_pending", "max_deliver", "backoff"] as const;

/** filter_subject is always stated; undefined means the whole stream (a consumer that needs the order across prefixes). */
export type DurableConfig = Partial<ConsumerConfig> & { durable_name: string; filter_subject: string | undefined };

const isConsumerNotFound = (e: unknown) => e instanceof JetStreamApiError && e.code === JetStreamApiCodes.ConsumerNotFound;

/**
 * Creates the durable consumer, or brings the updatable settings of the existing one to `config`
 * when they differ (a new ack wait or max_ack_pending takes effect at the next start instead of
 * never). Safe for replicas starting together: a concurrent creator's durable is then updated.
 * A start-time call, so tried again while JetStream does not answer yet (untilItWorks).
 */
export function ensureDurable(jsm: JetStreamManager, stream: string, config: DurableConfig, log: Logger): Promise<void> {
  return untilItWorks(`durable ${config.durable_name} of ${stream}`, () => createOrUpdate(jsm, stream, config, log), log);
}

async function createOrUpdate(jsm: JetStreamManager, stream: string, config: DurableConfig, log: Logger): Promise<void> {
  const name = config.durable_name;
  const existing = await jsm.consumers.info(stream, name).catch((e: unknown) => {
    if (isConsumerNotFound(e)) return undefined;
    throw e;
  });
  if (!existing) {
    try {
      await jsm.consumers.add(stream, config);
      return;
    } catch (e) {
      // Created meanwhile by another replica: fall through and compare with what it made.
      if (!(await jsm.consumers.info(stream, name).catch(() => undefined))) throw e;
    }
  }
  const current = existing?.config ?? (await jsm.consumers.info(stream, name)).config;
  const changed = changedSettings(current, config);
  if (Object.keys(changed).length === 0) return;
  await jsm.consumers.update(stream, name, changed);
  log.info({ stream, consumer: name, changed }, "durable consumer settings updated");
}

/** The updatable settings `desired` sets to another value than `current` has. */
export function changedSettings(current: Partial<ConsumerConfig>, desired: Partial<ConsumerConfig>): Partial<ConsumerConfig> {
  const changed: Record<string, unknown> = {};
  for (const key of UPDATABLE) {
    if (desired[key] !== undefined && JSON.stringify(desired[key]) !== JSON.stringify(current[key])) changed[key] = desired[key];
  }
  return changed as Partial<ConsumerConfig>;
}
