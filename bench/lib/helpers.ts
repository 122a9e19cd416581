import { metricValue } from "./metrics.ts";
import type { WebhookClock } from "./webhook-clock.ts";

/** Takes consecutive slices of `items`; a slice past the end comes up short. */
export function slicer<T>(items: T[]): (n: number) => T[] {
  let at = 0;
  return (n) => items.slice(at, (at += n));
}

export function shuffle<T>(items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

/** The deep page answers 100 items before it is timed; its total goes into the report. */
export async function deepPageTotal(gatewayUrl: string, apiKey: string, page: number): Promise<number> {
  const res = await fetch(`${gatewayUrl}/v1/payments?page=${page}&limit=100`, { headers: { "X-Api-Key": apiKey }, signal: AbortSignal.timeout(10_000) });
  const body = (await res.json()) as { items?: unknown[]; total: number };
  if (res.status !== 200 || body.items?.length !== 100) throw new Error(`deep page ${page}: HTTP ${res.status}, ${body.items?.length} items`);
  return body.total;
}

/** Until payments' outbox is empty and every published event reached the receiver (bounded). */
export async function waitDrained(paymentsUrl: string, clock: WebhookClock, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if ((await metricValue(paymentsUrl, "payments_outbox_unpublished")) === 0 && (await clock.undelivered()) === 0) return true;
    await Bun.sleep(500);
  }
  return false;
}
