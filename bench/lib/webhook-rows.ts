import type { ShopPayment, WebhookShop } from "./bench-stack.ts";
import type { Stack } from "../../tests/harness/stack.ts";
import { createPaymentsThroughApi, createShops } from "./bench-stack.ts";
import { metricValue } from "./metrics.ts";
import { measureCpu } from "./proc.ts";
import type { LoadRow, WebhookRow } from "./report.ts";
import type { WebhookClock } from "./webhook-clock.ts";
import { cancelsAtRate, publishedEvents, type WebhookResult } from "./webhook-scenarios.ts";

export type WebhookSettings = { rate: number; seconds: number; burst: number; shops: number };

/**
 * The webhook pipeline's three rows (bench/run.ts, bench/webhooks.ts): `rate` cancels a second
 * through the API for `seconds`, spread over `shops` new live shops; the same on one shop
 * (`oneShop`: CREATED payments of a shop whose webhooks go to the clock's receiver); `burst` SUCCESS
 * events published at once straight to the PAYMENTS stream over the shops, for the maximum. Each
 * row with the CPU of `pids` (and the receiver's) per event, and the dispatcher's deferrals and
 * attempt time from its metrics.
 */
export async function webhookRows(opts: { stack: Stack; pids: Record<string, number | number[]>; clock: WebhookClock; oneShop: ShopPayment[]; settings: WebhookSettings; say: (s: string) => void }) {
  const { stack, clock, settings: s } = opts;
  const dispatcherUrl = stack.url("webhook-dispatcher");
  const cpuRows: LoadRow[] = [];
  const run = async (key: string, label: string, scenario: () => Promise<WebhookResult>): Promise<WebhookRow> => {
    opts.say(`webhooks: ${label}`);
    const counters = ["webhook_deferrals_total", "webhook_attempt_duration_seconds_sum", "webhook_attempt_duration_seconds_count"];
    const before = await Promise.all(counters.map((c) => metricValue(dispatcherUrl, c)));
    const m = await measureCpu({ ...opts.pids, receiver: clock.pid }, async () => ({ result: await scenario() }));
    const [deferrals, attemptSeconds, attempts] = (await Promise.all(counters.map((c) => metricValue(dispatcherUrl, c)))).map((v, i) => v - before[i]!);
    const w = m.result;
    cpuRows.push({ key, label: `webhooks: ${label}`, rps: w.perSecond, p50Ms: w.p50Ms, p99Ms: w.p99Ms, errors: w.failedRequests, cpu: m.cpu });
    return { key, label, result: { ...w, deferrals: deferrals!, attemptMs: (attemptSeconds! / attempts!) * 1000 } };
  };
  const offered = Math.min(opts.oneShop.length, s.rate * s.seconds);
  const shops: WebhookShop[] = await createShops(stack, s.shops, clock.url);
  const spread = await createPaymentsThroughApi(stack.gateway, shops, Math.ceil(offered / s.shops));
  const rows = [
    await run("rate", `${s.rate}/s offered: API cancels, ${s.shops} shops`, () => cancelsAtRate({ clock, gatewayUrl: stack.gateway, payments: spread, ratePerSecond: s.rate })),
    await run("rate-1", `${s.rate}/s offered: API cancels, one shop`, () => cancelsAtRate({ clock, gatewayUrl: stack.gateway, payments: opts.oneShop.slice(0, offered), ratePerSecond: s.rate })),
    await run("max", `max: ${s.burst.toLocaleString("en-US")} events at once, ${s.shops} shops`, () =>
      publishedEvents({ clock, nc: stack.nc, shops: shops.map((x) => x.record), n: s.burst }),
    ),
  ];
  return { rows, cpuRows };
}
