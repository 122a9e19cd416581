import { prom, registry } from "@payaccept/platform";

/**
 * By shop too, for the per-shop failure ratio an on-call engineer is paged on: one series per shop
 * that had attempts on this replica and outcome, which Prometheus holds easily up to some
 * thousands of shops (docs/observability.md, "Metrics").
 */
export const webhookAttempts = new prom.Counter({
  name: "webhook_attempts_total",
  help: "Webhook attempts by outcome (delivered, failed, blocked, no_url: the shop has no webhook URL, nothing sent) and shop id",
  labelNames: ["outcome", "shop"] as const,
  registers: [registry],
});

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
