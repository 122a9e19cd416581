import { prom, registry } from "@payaccept/platform";

export const paymentEventsApplied = new prom.Counter({
  name: "balance_payment_events_total",
  help: "Payment events the balance ledger consumed, by status and effect (receipt, refund, duplicate, sandbox, no-money)",
  labelNames: ["status", "effect"] as const,
  registers: [registry],
});
