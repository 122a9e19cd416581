import { rpcs } from "@payaccept/contracts";
import { moscowDay } from "@payaccept/platform";
import type { Stack } from "../../tests/harness/stack.ts";
import { quantile } from "./stats.ts";

const DAY_MS = 86_400_000;

/**
 * The dashboard overview's aggregates for the last 30 Moscow days of one shop, as the page asks
 * for them (rpcs.payments.stats and rpcs.webhooks.health together, over NATS), one request at a
 * time: milliseconds per page, p50 and p99 of `runs`.
 */
export async function overviewLatency(stack: Stack, shopId: string, runs = 200): Promise<{ p50Ms: number; p99Ms: number }> {
  const now = Date.now();
  const period = { shopIds: [shopId], fromDay: moscowDay(now - 29 * DAY_MS), toDay: moscowDay(now) };
  const once = () => Promise.all([stack.call(rpcs.payments.stats, period), stack.call(rpcs.webhooks.health, period)]);
  await once();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await once();
    samples.push(performance.now() - started);
  }
  return { p50Ms: quantile(samples, 0.5), p99Ms: quantile(samples, 0.99) };
}
