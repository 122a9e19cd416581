import { prom, registry } from "@payaccept/platform";

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
