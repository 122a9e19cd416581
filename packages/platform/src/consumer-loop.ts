import type { Consumer, JsMsg } from "@nats-io/jetstream";
import type { z } from "zod";
import type { Logger } from "./log.ts";
import { retryDelayMs, type Backoff } from "./retry.ts";
import { inConsumeSpan } from "./tracing.ts";

/** ended resolves when the loop stops, by stop() or on its own (consumer deleted, connection closed). */
export type RunningLoop = { isActive: () => boolean; ended: Promise<void>; stop: () => Promise<void> };

/**
 * A message whose handler threw (a storage error) is offered again after a pause that grows with
 * its deliveries; no budget of our own: the message stays until the store is back (max_deliver).
 */
const HANDLER_ERROR_RETRY: Backoff = { baseMs: 1_000, capMs: 30_000 };

/**
 * Pulls from a durable consumer and runs up to `concurrency` handlers at once. The pull pauses
 * while every slot is taken, so messages do not pile up unacked in this process. stop() pulls no
 * more, hands the messages already pulled but not started back to the stream at once (another
 * replica takes them, instead of waiting for their ack wait to run out), and waits for the
 * handlers that are running. Each message is handled inside its consumer span (tracing.ts), a child
 * of the span that published it.
 */
export async function runConsumerLoop(
  consumer: Consumer,
  opts: { name: string; concurrency: number; handle: (m: JsMsg) => Promise<void> | void; log: Logger },
): Promise<RunningLoop> {
  // A deleted consumer ends the loop instead of waiting for someone to recreate it.
  // Short pulls (2 s, heartbeats every second): a pull held by a consumer leader on a node that
  // died or hangs is noticed after two missed heartbeats, instead of the default 30 s expiry. nats.js
  // then asks for the consumer's info until a new leader answers, pausing between tries for
  // half to one and a half times the expiry: with 5 s pulls, events waited in the stream about 5 s
  // after the new leader was there (docs/nats.md, "Events while a node hangs"). The cost is
  // one pull request every 2 s and a heartbeat a second per idle consumer.
  const messages = await consumer.consume({
    max_messages: Math.max(opts.concurrency, 16),
    expires: 2000,
    abort_on_missing_resource: true,
  });
  const slots = new Slots(opts.concurrency);
  const running = new Set<Promise<void>>();
  let active = true;
  let stopping = false;
  const run = async (m: JsMsg) => {
    try {
      await inConsumeSpan(m, opts.name, async () => opts.handle(m));
    } catch (err) {
      const retryInMs = retryDelayMs(HANDLER_ERROR_RETRY, m.info.deliveryCount);
      opts.log.error({ err, consumer: opts.name, seq: m.seq, retryInMs }, "message handler failed; will retry");
      m.nak(retryInMs);
    }
  };
  const done = (async () => {
    for await (const m of messages) {
      await slots.take();
      if (stopping) {
        slots.give();
        m.nak();
        continue;
      }
      const task = run(m).finally(() => {
        slots.give();
        running.delete(task);
      });
      running.add(task);
    }
  })()
    .catch((err) => opts.log.error({ err, consumer: opts.name }, "consumer loop failed"))
    .finally(() => {
      active = false;
    });
  return {
    isActive: () => active,
    ended: done,
    stop: async () => {
      stopping = true;
      await messages.close();
      await done;
      await Promise.allSettled([...running]);
    },
  };
}

/** A counting semaphore. */
class Slots {
  private waiters: (() => void)[] = [];
  constructor(private free: number) {}

  take(): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  give(): void {
    const next = this.waiters.shift();
    if (next) next();
    else this.free++;
  }
}

/**
 * The message's JSON checked against its schema, or undefined after terminating it: a message
 * that does not match can never be handled, so redelivering it would only loop.
 */
export function decodeOrTerm<S extends z.ZodType>(m: JsMsg, schema: S, what: string, log: Logger): z.output<S> | undefined {
  let body: unknown;
  try {
    body = m.json();
  } catch {
    body = undefined;
  }
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  log.error({ subject: m.subject, seq: m.seq, issues: parsed.error.issues }, `${what} does not match its contract; terminated`);
  m.term(`invalid ${what}`);
  return undefined;
}
