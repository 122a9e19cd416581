import { RECONCILE_ACTIONS, RECONCILE_KINDS, type ReconcileReport } from "@payaccept/contracts";
import { prom, registry } from "@payaccept/platform";
import type { CommittedTransition, EndedRefund, OutboxRepo, RefundsRepo } from "./store/payments-store.ts";

const transitionsTotal = new prom.Counter({
  name: "payments_transitions_total",
  help: "Committed payment status changes, by from, to and trigger",
  labelNames: ["from", "to", "trigger"] as const,
  registers: [registry],
});

/**
 * The money of those changes, for the flows an operator watches (paid, refunded, expired): kopecks
 * by the status reached, sandbox (`test="true"`) apart from live money.
 */
const transitionsKopecks = new prom.Counter({
  name: "payments_transitions_kopecks_total",
  help: "Amounts (kopecks) of the payments whose status changed, by the status reached and test (sandbox) or live",
  labelNames: ["to", "test"] as const,
  registers: [registry],
});

export function countTransition({ row, from, to, trigger }: CommittedTransition): void {
  transitionsTotal.inc({ from, to, trigger });
  transitionsKopecks.inc({ to, test: String(row.isTest) }, row.amountKopecks);
}

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

const refundsEnded = new prom.Counter({
  name: "payments_refunds_ended_total",
  help: "Refunds that ended, by status (SUCCEEDED, FAILED)",
  labelNames: ["status"] as const,
  registers: [registry],
});

const refundsEndedKopecks = new prom.Counter({
  name: "payments_refunds_ended_kopecks_total",
  help: "Amounts (kopecks) of the refunds that ended, by status (SUCCEEDED, FAILED) and test (sandbox) or live",
  labelNames: ["status", "test"] as const,
  registers: [registry],
});

export function countEndedRefund({ refund, payment }: EndedRefund): void {
  refundsEnded.inc({ status: refund.status });
  refundsEndedKopecks.inc({ status: refund.status, test: String(payment.isTest) }, refund.amountKopecks);
}

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

const reconcileRuns = new prom.Counter({ name: "payments_reconcile_runs_total", help: "Reconciliations with the acquirers run by this process (the scheduled job and the admin CLI's)", registers: [registry] });
const reconcileChecked = new prom.Counter({
  name: "payments_reconcile_checked_total",
  help: "Payments and refunds a reconciliation looked up at their acquirer, by whether the acquirer answered",
  labelNames: ["answered"] as const,
  registers: [registry],
});
const reconcileDifferences = new prom.Counter({
  name: "payments_reconcile_differences_total",
  help: "Differences a reconciliation found between payments and the acquirers, by kind (payment, charge, hold, refund) and action (applied: the acquirer's result committed; reported: a person must look)",
  labelNames: ["kind", "action"] as const,
  registers: [registry],
});
// Every series from 0, so the first difference of a kind is an increase the alert sees.
for (const kind of RECONCILE_KINDS) for (const action of RECONCILE_ACTIONS) reconcileDifferences.inc({ kind, action }, 0);

export function countReconciliation(report: ReconcileReport): void {
  reconcileRuns.inc();
  reconcileChecked.inc({ answered: "true" }, report.checked - report.unanswered);
  reconcileChecked.inc({ answered: "false" }, report.unanswered);
  for (const d of report.differences) reconcileDifferences.inc({ kind: d.kind, action: d.action });
}
