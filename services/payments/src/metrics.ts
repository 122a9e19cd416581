import { prom, registry } from "@payaccept/platform";
import type { OutboxRepo } from "./store/outbox-repo.ts";

export const transitionsTotal = new prom.Counter({
  name: "payments_transitions_total",
  help: "Committed payment status changes, by from, to and trigger",
  labelNames: ["from", "to", "trigger"] as const,
  registers: [registry],
});

/**
 * The outbox backlog, read at scrape time: a growing count or age means events are not reaching
 * JetStream (webhooks and the ledger are behind), the first thing to alert on.
 */
export function registerOutboxGauges(outbox: OutboxRepo): void {
  new prom.Gauge({
    name: "payments_outbox_unpublished",
    help: "Events committed but not yet acknowledged by JetStream",
    registers: [registry],
    collect() {
      this.set(outbox.backlog().count);
    },
  });
  new prom.Gauge({
    name: "payments_outbox_oldest_unpublished_age_seconds",
    help: "Age of the oldest event not yet acknowledged by JetStream (0 when none)",
    registers: [registry],
    collect() {
      const { oldest } = outbox.backlog();
      this.set(oldest === null ? 0 : (Date.now() - oldest) / 1000);
    },
  });
}
