import type { ShopRecord } from "@payaccept/contracts";
import type { NatsConnection } from "@payaccept/platform";
import { paymentEvent, publishPaymentEvent } from "../../services/webhook-dispatcher/test-support/fixtures.ts";
import type { ShopPayment } from "./bench-stack.ts";
import { webhookKey, type DeliveryStats, type WebhookClock } from "./webhook-clock.ts";

export type WebhookResult = DeliveryStats & { offeredPerSecond: number; failedRequests: number; complete: boolean };

/**
 * Starts `send(i)` for i = 0..n-1 at `ratePerSecond` (an open loop: a slow answer does not lower
 * the offered rate), at most `maxInFlight` at once; bounded by n and by n / rate + 30 s.
 */
async function offerAtRate(n: number, ratePerSecond: number, maxInFlight: number, send: (i: number) => Promise<boolean>) {
  const started = performance.now();
  const deadline = started + (n / ratePerSecond) * 1000 + 30_000;
  const inFlight = new Set<Promise<unknown>>();
  let failed = 0;
  for (let i = 0; i < n && performance.now() < deadline; ) {
    const due = Math.min(n, Math.floor(((performance.now() - started) / 1000) * ratePerSecond) + 1);
    while (i < due && inFlight.size < maxInFlight) {
      const p: Promise<unknown> = send(i++).then((ok) => {
        if (!ok) failed++;
        inFlight.delete(p);
      });
      inFlight.add(p);
    }
    await Bun.sleep(1);
  }
  await Promise.all(inFlight);
  return { failed, seconds: (performance.now() - started) / 1000 };
}

/**
 * The whole path at a fixed offered rate: merchant cancels through the gateway (payments commits
 * CREATED → CANCELED with its outbox row), relay → PAYMENTS → dispatcher intake → WEBHOOKS →
 * attempt → the receiver.
 */
export async function cancelsAtRate(opts: { clock: WebhookClock; gatewayUrl: string; payments: ShopPayment[]; ratePerSecond: number }): Promise<WebhookResult> {
  const { clock, payments } = opts;
  const startedAt = Date.now();
  const offered = await offerAtRate(payments.length, opts.ratePerSecond, 256, async (i) => {
    const { id, apiKey } = payments[i]!;
    const res = await fetch(`${opts.gatewayUrl}/v1/payments/${id}/cancel`, {
      method: "POST",
      headers: { "X-Api-Key": apiKey },
      signal: AbortSignal.timeout(10_000),
    }).catch(() => null);
    await res?.arrayBuffer();
    return res?.status === 200;
  });
  const keys = payments.map((p) => webhookKey(p.id, "CANCELED"));
  const complete = await clock.waitFor(keys, 60_000);
  return { ...clock.stats(keys, startedAt), offeredPerSecond: payments.length / offered.seconds, failedRequests: offered.failed, complete };
}

/**
 * The dispatcher alone: `n` SUCCESS events published straight to the PAYMENTS stream, exactly as
 * the payments outbox relay publishes them, at `ratePerSecond` (default: all at once, to find the
 * maximum), spread over `shops` (each shop has its own in-flight cap, docs/webhooks.md);
 * occurredAt is the moment each is built.
 */
export async function publishedEvents(opts: { clock: WebhookClock; nc: NatsConnection; shops: ShopRecord[]; n: number; ratePerSecond?: number }): Promise<WebhookResult> {
  const { clock, shops, n } = opts;
  const keys: string[] = [];
  const startedAt = Date.now();
  const offered = await offerAtRate(n, opts.ratePerSecond ?? Number.MAX_SAFE_INTEGER, 512, async (i) => {
    const event = paymentEvent(shops[i % shops.length]!);
    keys.push(webhookKey(event.paymentId, event.status));
    return publishPaymentEvent(opts.nc, event).then(() => true, () => false);
  });
  const complete = await clock.waitFor(keys, 120_000);
  return { ...clock.stats(keys, startedAt), offeredPerSecond: n / offered.seconds, failedRequests: offered.failed, complete };
}
