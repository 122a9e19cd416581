import type { ConnectorId, ReconcileDifference, ReconcileReport } from "@payaccept/contracts";
import { LEGACY_CONNECTOR } from "../connectors/connectors.ts";
import { countReconciliation } from "../metrics.ts";
import { ProviderError, type ProviderOutcome } from "../provider/port.ts";
import type { PaymentRow, RefundRow } from "../store/payments-store.ts";
import type { PaymentsDeps } from "./deps.ts";
import { applyResult, resultOfState } from "./provider-results.ts";

/**
 * Reconciliation with the acquirers (docs/connectors.md, "Reconciliation"): every live payment
 * still waiting on an acquirer's word (PENDING, AUTHORIZED) and every refund still PENDING, past
 * `olderThanMs`, is looked up at its connector (the session's state, or a charge by its own id).
 * Where the acquirer has decided and payments has not heard (a notification that never came, an
 * answer lost), the acquirer is authoritative: its result is applied as a callback would be
 * (applyResult: once, by the state machine, with the acquirer's time where it reports one, and
 * the merchant's webhook). What cannot be applied is reported for a person. Each difference is a
 * log line and a metric; the report is the admin CLI's answer.
 */
export type ReconcileOptions = { olderThanMs: number; limit: number; shopId?: string };

type Lookup = { kind: "found"; outcome: ProviderOutcome } | { kind: "none" } | { kind: "unanswered" } | { kind: "refused"; detail: string };

/** A reconciliation, counted in the metrics and summed up in one log line. */
export async function reconcileNow(d: PaymentsDeps, opts: ReconcileOptions): Promise<ReconcileReport> {
  const report = await reconcile(d, opts);
  countReconciliation(report);
  d.log.info({ checked: report.checked, unanswered: report.unanswered, differences: report.differences.length, olderThanMs: opts.olderThanMs }, "reconciliation done");
  return report;
}

export async function reconcile(d: PaymentsDeps, opts: ReconcileOptions): Promise<ReconcileReport> {
  const startedAt = d.now();
  const before = startedAt - opts.olderThanMs;
  const differences: ReconcileDifference[] = [];
  let checked = 0;
  let unanswered = 0;
  const note = (difference: ReconcileDifference) => {
    differences.push(difference);
    d.log.warn({ ...difference }, "reconciliation difference");
  };

  for (const row of await d.repo.reconcileDue(before, opts.limit, opts.shopId)) {
    const connector = await connectorOf(d, row);
    const looked = await lookup(d, row, connector);
    checked++;
    if (looked.kind === "unanswered") unanswered++;
    const base = { kind: kindOf(row), paymentId: row.id, refundId: null, shopId: row.shopId, connector, ours: row.status };
    if (looked.kind === "refused") note({ ...base, theirs: "UNKNOWN", action: "reported", status: row.status, detail: looked.detail });
    if (looked.kind !== "found") continue;
    const { outcome } = looked;
    const result = resultOfState(outcome, d.now());
    // A one-stage payment authorised at the bank is on its way to being paid: nothing differs yet.
    if (result.kind === "authorized" && !row.hold) continue;
    if (result.kind === "none") {
      if (outcome.status === "CANCELED" && row.status === "PENDING") {
        note({ ...base, theirs: outcome.status, action: "reported", status: row.status, detail: "the acquirer closed the session unpaid; the payment ends at its own deadline" });
      }
      continue;
    }
    const applied = await applyResult(d, row, result, outcome.sessionId, connector);
    if (applied.result === "repeat") continue;
    const action = applied.result === "applied" ? "applied" : "reported";
    note({ ...base, theirs: outcome.status, action, status: applied.row.status, detail: applied.reason ?? `${row.status} → ${applied.row.status} as the acquirer has it` });
  }

  for (const refund of await d.refunds.pendingSince(before, opts.limit)) {
    const payment = await d.repo.byId(refund.paymentId);
    if (!payment || payment.isTest || (opts.shopId !== undefined && payment.shopId !== opts.shopId)) continue;
    checked++;
    const connector = payment.connector ?? LEGACY_CONNECTOR;
    const looked = await lookup(d, payment, connector);
    if (looked.kind === "unanswered") unanswered++;
    note(refundDifference(refund, payment, connector, looked));
  }

  return { startedAt: new Date(startedAt).toISOString(), finishedAt: new Date(d.now()).toISOString(), checked, unanswered, differences };
}

const kindOf = (row: PaymentRow): ReconcileDifference["kind"] => (row.status === "AUTHORIZED" ? "hold" : row.merchantInitiated ? "charge" : "payment");

/** The connector a payment's session lives at; a charge that has not learned its session yet is its saved method's. */
async function connectorOf(d: PaymentsDeps, row: PaymentRow): Promise<ConnectorId> {
  if (row.connector) return row.connector;
  if (row.merchantInitiated && row.savedMethodId) return (await d.methods.byId(row.savedMethodId))?.connector ?? LEGACY_CONNECTOR;
  return LEGACY_CONNECTOR;
}

/** The acquirer's word on a payment: its session, or a charge found by its own id; never an operation, only reads. */
async function lookup(d: PaymentsDeps, row: PaymentRow, connector: ConnectorId): Promise<Lookup> {
  if (!d.connectors.configured(connector)) return { kind: "refused", detail: `connector ${connector} is not configured in this deployment` };
  const port = d.connectors.get(connector).port;
  try {
    if (row.providerSessionId) return { kind: "found", outcome: await port.session(row.providerSessionId) };
    const method = row.savedMethodId ? await d.methods.byId(row.savedMethodId) : undefined;
    if (!row.merchantInitiated || !method?.providerMethodId) return { kind: "none" };
    const outcome = await port.findCharge(row.id, method.providerMethodId);
    return outcome ? { kind: "found", outcome } : { kind: "none" };
  } catch (e) {
    if (!(e instanceof ProviderError)) throw e;
    return e.kind === "unavailable" ? { kind: "unanswered" } : { kind: "refused", detail: e.message };
  }
}

/** A refund still PENDING past the threshold: reported with its payment's session as the acquirer has it (the refund sweeper drives it). */
function refundDifference(refund: RefundRow, payment: PaymentRow, connector: ConnectorId, looked: Lookup): ReconcileDifference {
  const theirs = looked.kind === "found" ? looked.outcome.status : looked.kind === "unanswered" ? "UNANSWERED" : "UNKNOWN";
  return {
    kind: "refund",
    paymentId: payment.id,
    refundId: refund.id,
    shopId: payment.shopId,
    connector,
    ours: refund.status,
    theirs,
    action: "reported",
    status: refund.status,
    detail: `a refund of ${refund.amountKopecks} kopecks PENDING since ${new Date(refund.createdAt).toISOString()}; the refund sweeper drives it again every REFUND_RETRY_MS`,
  };
}
