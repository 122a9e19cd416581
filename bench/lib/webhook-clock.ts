import { PAYMENT_EVENTS_SUBJECT_PREFIX, type PaymentEvent } from "@payaccept/contracts";
import { decodeJson, type NatsConnection, type Subscription } from "@payaccept/platform";
import { listeningPort, startBenchServer, stopServers, type BenchServer } from "./spawn.ts";
import { quantile } from "./stats.ts";

/** (paymentId, status): one payment-result webhook. */
export const webhookKey = (paymentId: string, status: string) => `${paymentId}:${status}`;

export type DeliveryStats = { events: number; delivered: number; perSecond: number; p50Ms: number; p99Ms: number; maxMs: number };

/**
 * Final status → delivery, per event. The final-status moment is the event's `occurredAt` (the
 * `now` of the transition that payments committed, or of an event published straight to the
 * stream), read from the PAYMENTS subjects as they are published; the delivery moment is when the
 * merchant's endpoint (bench/servers/webhook-receiver.ts, its own process on 127.0.0.1) got the
 * request. One machine, one clock, millisecond resolution.
 */
export class WebhookClock {
  private readonly finalAt = new Map<string, number>();
  private readonly deliveredAt = new Map<string, number>();
  private sub?: Subscription;

  private constructor(
    private readonly receiver: BenchServer,
    readonly url: string,
  ) {}

  /** The receiver starts first: its URL goes into the shops' settings. */
  static async start(): Promise<WebhookClock> {
    const { proc, line } = await startBenchServer("webhook-receiver.ts");
    return new WebhookClock(proc, `http://127.0.0.1:${listeningPort(line)}/webhooks`);
  }

  get pid(): number {
    return this.receiver.pid;
  }

  /** Follows the final statuses published on `nc` from now on. */
  follow(nc: NatsConnection): void {
    this.sub = nc.subscribe(`${PAYMENT_EVENTS_SUBJECT_PREFIX}.>`, {
      callback: (err, msg) => {
        if (err) return;
        const event = decodeJson<PaymentEvent>(msg.data);
        const key = webhookKey(event.paymentId, event.status);
        if (!this.finalAt.has(key)) this.finalAt.set(key, Date.parse(event.occurredAt));
      },
    });
  }

  /** Fetches the arrivals the receiver noted since the last sync. */
  private async sync(): Promise<void> {
    const res = await fetch(new URL(`/deliveries/${this.deliveredAt.size}`, this.url), { signal: AbortSignal.timeout(10_000) });
    for (const [key, at] of (await res.json()) as [string, number][]) this.deliveredAt.set(key, at);
  }

  /** Events seen on the stream that the receiver has not got yet. */
  async undelivered(): Promise<number> {
    await this.sync();
    let n = 0;
    for (const key of this.finalAt.keys()) if (!this.deliveredAt.has(key)) n++;
    return n;
  }

  /** Waits (bounded) until every event of `keys` has been delivered; false on timeout. */
  async waitFor(keys: string[], timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      await this.sync();
      if (keys.every((k) => this.deliveredAt.has(k))) return true;
      await Bun.sleep(200);
    }
    return false;
  }

  /** Delivered rate from `startedAt` (epoch ms) to the last delivery, and the latency quantiles. */
  stats(keys: string[], startedAt: number): DeliveryStats {
    const latencies: number[] = [];
    let last = startedAt;
    for (const key of keys) {
      const delivered = this.deliveredAt.get(key);
      const final = this.finalAt.get(key);
      if (delivered === undefined || final === undefined) continue;
      latencies.push(delivered - final);
      last = Math.max(last, delivered);
    }
    return {
      events: keys.length,
      delivered: latencies.length,
      perSecond: latencies.length / Math.max(0.001, (last - startedAt) / 1000),
      p50Ms: quantile(latencies, 0.5),
      p99Ms: quantile(latencies, 0.99),
      maxMs: quantile(latencies, 1),
    };
  }

  async stop(): Promise<void> {
    this.sub?.unsubscribe();
    await stopServers([this.receiver]);
  }
}
