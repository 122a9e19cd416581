import { jetstreamManager, type ConsumerInfo } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { prom, readOncePerScrape, registry } from "./metrics.ts";

export type ConsumerRef = { stream: string; durable: string };

const FIELDS = {
  jetstream_consumer_pending_messages: {
    help: "Messages in the stream not yet delivered to the durable consumer (work waiting to be taken)",
    value: (i: ConsumerInfo) => i.num_pending,
  },
  jetstream_consumer_ack_pending_messages: {
    help: "Messages delivered to the durable consumer and not yet acknowledged (in progress, or waiting for a retry)",
    value: (i: ConsumerInfo) => i.num_ack_pending,
  },
  jetstream_consumer_redelivered_messages: {
    help: "Unacknowledged messages of the durable consumer that have been delivered more than once",
    value: (i: ConsumerInfo) => i.num_redelivered,
  },
} as const;

/**
 * Gauges of the given durable consumers, read from JetStream when /metrics is scraped, so they
 * are as fresh as the scrape and cost nothing in between. The consumers are shared by every
 * replica, so each replica reports the same figures: aggregate them with max, not sum. A consumer
 * that cannot be read (NATS down, consumer missing) has no series until it can, rather than a
 * stale one. Call once per process. It asks JetStream nothing itself (no account check), so it
 * cannot end a start while JetStream is slow; the first scrape makes the first read.
 */
export async function registerConsumerGauges(nc: NatsConnection, consumers: ConsumerRef[], timeoutMs: number): Promise<void> {
  const jsm = await jetstreamManager(nc, { timeout: timeoutMs, checkAPI: false });
  const read = readOncePerScrape(() => Promise.all(consumers.map((c) => jsm.consumers.info(c.stream, c.durable).catch(() => undefined))));
  for (const [name, field] of Object.entries(FIELDS)) {
    new prom.Gauge({
      name,
      help: field.help,
      labelNames: ["stream", "consumer"] as const,
      registers: [registry],
      async collect() {
        const infos = await read();
        consumers.forEach((c, i) => {
          const labels = { stream: c.stream, consumer: c.durable };
          const info = infos[i];
          if (info) this.set(labels, field.value(info));
          else this.remove(labels);
        });
      },
    });
  }
}
