import { prom, registry } from "@payaccept/platform";

/**
 * Requests with an Idempotency-Key by what the key decided: claimed (ran), retry (ran again after
 * an answer was lost or a gateway died), replay, mismatch (422), busy (409). Many retries mean
 * answers are being lost; many mismatches, a client reusing keys.
 */
export const idempotencyOutcomes = new prom.Counter({
  name: "gateway_idempotency_requests_total",
  help: "Requests with an Idempotency-Key, by outcome: claimed, retry, replay, mismatch, busy, unguarded (the store was unavailable)",
  labelNames: ["outcome"] as const,
  registers: [registry],
});

/** Gets and lookups of a payment by where their answer came from: the read model (memory) or payments. */
export const paymentReads = new prom.Counter({
  name: "gateway_payment_reads_total",
  help: "Gets and lookups of one payment, by the source of the answer: memory (the read model) or payments",
  labelNames: ["source"] as const,
  registers: [registry],
});

/**
 * 1 while the read model keeps and answers payments (payments' notices heard, no payments process
 * without them answering lately, docs/gateway.md "Reads from the read model"), else 0.
 */
export function registerReadModelGauge(on: () => boolean): void {
  new prom.Gauge({
    name: "gateway_read_model_on",
    help: "1 while the read model keeps payments and answers from memory; 0 before payments' notices are heard, and while a payments process that sends none answers",
    registers: [registry],
    collect() {
      this.set(on() ? 1 : 0);
    },
  });
}
