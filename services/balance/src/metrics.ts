import { prom, readOncePerScrape, registry } from "@payaccept/platform";
import type { PayoutOps } from "./store/payout-store.ts";

export const paymentEventsApplied = new prom.Counter({
  name: "balance_payment_events_total",
  help: "Payment events the balance ledger consumed, by status and effect (receipt, duplicate, sandbox, no-money)",
  labelNames: ["status", "effect"] as const,
  registers: [registry],
});

export const refundEventsApplied = new prom.Counter({
  name: "balance_refund_events_total",
  help: "Refund events the balance ledger consumed, by status and effect (refund-taken, refund-released, duplicate, sandbox)",
  labelNames: ["status", "effect"] as const,
  registers: [registry],
});

/**
 * Open payouts, read at scrape time: a payout PENDING for days is one nothing sends (the platform's
 * own account or the rail not configured, the rail failing); one SENT for days is one its bank has
 * not confirmed (a statement not imported, the bank's API not answering).
 */
export function registerPayoutGauges(store: Pick<PayoutOps, "openPayouts">, now: () => number): void {
  const open = readOncePerScrape(() => store.openPayouts());
  new prom.Gauge({
    name: "balance_payouts_open",
    help: "Payouts not yet ended, by status (PENDING: not yet sent; SENT: not yet confirmed by the bank)",
    labelNames: ["status"] as const,
    registers: [registry],
    async collect() {
      for (const [status, { count }] of Object.entries(await open())) this.set({ status }, count);
    },
  });
  new prom.Gauge({
    name: "balance_payouts_oldest_open_age_seconds",
    help: "How long the oldest payout in each open status has been in it (0 when none)",
    labelNames: ["status"] as const,
    registers: [registry],
    async collect() {
      const t = now();
      for (const [status, { since }] of Object.entries(await open())) this.set({ status }, since === null ? 0 : (t - since) / 1000);
    },
  });
}
