import { prom, registry } from "@payaccept/platform";
import { FAILING_MIN_ATTEMPTS, FAILING_RATIO, ShopFailures } from "./shop-failures.ts";

/** By outcome only: a shop's id on every attempt's counter would make a series per shop (docs/observability.md, "Metrics"). */
export const webhookAttempts = new prom.Counter({
  name: "webhook_attempts_total",
  help: "Webhook attempts by outcome (delivered, failed, blocked, no_url: the shop has no webhook URL, nothing sent)",
  labelNames: ["outcome"] as const,
  registers: [registry],
});
/** Every outcome is on /metrics from the start at 0, so a rate over it sees the first attempts as an increase. */
export const ATTEMPT_OUTCOMES = ["delivered", "failed", "blocked", "no_url"] as const;
for (const outcome of ATTEMPT_OUTCOMES) webhookAttempts.inc({ outcome }, 0);

/** The failing shops named on /metrics: the few an on-call engineer is told about, whatever the number of shops. */
const FAILING_SHOPS_NAMED = 5;

/** Which shops' webhooks fail, from this process's attempts of the last hour (what is kept is bounded). */
export const shopFailures = new ShopFailures();

/**
 * Per-shop failure state, bounded: how many shops are failing, and the few failing most by id.
 * Read at scrape from shopFailures (the gauges are registered by main.ts, which owns the process).
 */
export function registerShopFailureGauges(failures = shopFailures): void {
  const rule = `more than ${FAILING_RATIO * 100} % of at least ${FAILING_MIN_ATTEMPTS} attempts that sent something failed in the last hour`;
  new prom.Gauge({
    name: "webhook_shops_failing",
    help: `Shops whose webhooks fail: ${rule}, as this replica saw them`,
    registers: [registry],
    collect() {
      this.set(failures.failing(0).count);
    },
  });
  new prom.Gauge({
    name: "webhook_failing_shop_ratio",
    help: `Failure ratio of the ${FAILING_SHOPS_NAMED} failing shops (${rule}) with the most failed attempts, by shop id`,
    labelNames: ["shop"] as const,
    registers: [registry],
    collect() {
      // Only the shops named now: a shop that stopped failing leaves the gauge.
      this.reset();
      for (const w of failures.failing(FAILING_SHOPS_NAMED).worst) this.set({ shop: w.shopId }, w.ratio);
    },
  });
}

export const webhookAttemptDuration = new prom.Histogram({
  name: "webhook_attempt_duration_seconds",
  help: "Time from the start of an attempt to the receiver's response headers",
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 3, 5, 10],
  registers: [registry],
});

export const webhookSeriesFinished = new prom.Counter({
  name: "webhook_series_finished_total",
  help: "Attempt series that ended, by result (delivered, exhausted, blocked)",
  labelNames: ["result"] as const,
  registers: [registry],
});

export const webhookDeferrals = new prom.Counter({
  name: "webhook_deferrals_total",
  help: "Deliveries handed back to JetStream because their shop already had its maximum of attempts in flight",
  registers: [registry],
});
