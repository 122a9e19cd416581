import { prom, registry } from "@payaccept/platform";
import type { OutboxRepo, RefundsRepo } from "./store/payments-store.ts";

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
export function registerOutboxGauges(outbox: OutboxRepo, now: () => number): void {
  new prom.Gauge({
    name: "payments_outbox_unpublished",
    help: "Events committed but not yet acknowledged by JetStream",
    registers: [registry],
    async collect() {
      this.set((await outbox.backlog()).count);
    },
  });
  new prom.Gauge({
    name: "payments_outbox_oldest_unpublished_age_seconds",
    help: "Age of the oldest event not yet acknowledged by JetStream (0 when none)",
    registers: [registry],
    async collect() {
      const { oldest } = await outbox.backlog();
      this.set(oldest === null ? 0 : (now() - oldest) / 1000);
    },
  });
}

export const refundsEnded = new prom.Counter({
  name: "payments_refunds_ended_total",
  help: "Refunds that ended, by status (SUCCEEDED, FAILED)",
  labelNames: ["status"] as const,
  registers: [registry],
});

/**
 * PENDING refunds, read at scrape time: one that stays PENDING well past REFUND_RETRY_MS means the
 * balance or the acquirer has not answered its retries (the money is safe, but the refund waits).
 */
export function registerRefundGauges(refunds: RefundsRepo, now: () => number): void {
  new prom.Gauge({
    name: "payments_refunds_pending",
    help: "Refunds not yet ended",
    registers: [registry],
    async collect() {
      this.set((await refunds.pending()).count);
    },
  });
  new prom.Gauge({
    name: "payments_refunds_oldest_pending_age_seconds",
    help: "Age of the oldest PENDING refund (0 when none)",
    registers: [registry],
    async collect() {
      const { oldest } = await refunds.pending();
      this.set(oldest === null ? 0 : (now() - oldest) / 1000);
    },
  });
}
