import { paymentEventId, refundEventId, type MethodEventStatus, type PaymentEventStatus, type PaymentMethod, type PaymentStatus, type RefundEventStatus } from "@payaccept/contracts";
import { moscowDay } from "@payaccept/domain";
import { traceCarrier, type TraceCarrier } from "@payaccept/platform";
import type { SeqBounds } from "../domain/list-plan.ts";
import { balanceShare } from "../domain/refund-rules.ts";
import { decide, isFinal, type PaymentTrigger, type TransitionDecision } from "../domain/state-machine.ts";
import { toMethodEvent, toPaymentEvent, toRefundEvent } from "../domain/views.ts";
import type { MethodEnd, NewPayment, PaymentRow, RefundOutcome, RefundRequest, RefundRow, SavedMethodRow, TransitionOptions } from "./payments-store.ts";

/** What both engines compute the same way, around their own statements. */

/**
 * The next payment of a shop after its last one: createdAt never goes back within a shop and ties
 * are ordered by id, so seq order, (createdAt, id) order and "oldest to newest" are one and the same.
 */
export function nextOfShop(last: { seq: number; createdAt: number; id: string } | undefined, now: number): { id: string; seq: number; createdAt: number } {
  let createdAt = Math.max(now, last?.createdAt ?? 0);
  let id = Bun.randomUUIDv7("hex", createdAt);
  if (last && id <= last.id) {
    createdAt = last.createdAt + 1;
    id = Bun.randomUUIDv7("hex", createdAt);
  }
  return { id, seq: (last?.seq ?? 0) + 1, createdAt };
}

/** A new payment's columns as its INSERT writes them: the create's, its numbering and its first state. */
export type InsertedValues = Omit<PaymentRow, "paidAt" | "updatedAt" | "providerSessionId" | "connector" | "sbpQrPayload" | "sbpDeepLink" | "cardFormAction" | "refundedKopecks" | "refundingKopecks" | "saveConsent" | "captureReceipt" | "failureCode" | "failureParams" | "authentication">;

/**
 * The row a payment's INSERT stored, without reading it back (RETURNING costs SQLite a row to
 * produce and drizzle 45 columns to map): the values written and every other
 * column's default. PaymentRow names every column, so one added to the table fails to compile here.
 */
export const insertedRow = (values: InsertedValues): PaymentRow => ({
  ...values,
  paidAt: null,
  updatedAt: values.createdAt,
  providerSessionId: null,
  connector: null,
  sbpQrPayload: null,
  sbpDeepLink: null,
  cardFormAction: null,
  refundedKopecks: 0,
  refundingKopecks: 0,
  saveConsent: null,
  captureReceipt: null,
  failureCode: null,
  failureParams: null,
  authentication: null,
});

/** The options with the caller's trace context, taken where the call is made (a batch runs the write later, elsewhere). */
export function withTrace(opts: TransitionOptions = {}): TransitionOptions {
  const trace = traceCarrier();
  return trace ? { ...opts, trace } : opts;
}

/** The state machine's answer for the row as read inside the transaction, narrowed by the options. */
export function decideFor(row: PaymentRow, trigger: PaymentTrigger, opts: TransitionOptions): TransitionDecision {
  const decision = decide(row.status, trigger);
  return decision.kind === "move" && opts.onlyIf && !opts.onlyIf(row) ? { kind: "refused", status: row.status } : decision;
}

/**
 * How a payment starts: a buyer's CREATED until createdAt + ttlMs; a merchant-initiated charge
 * PENDING at once, a live one leased to its driver for ttlMs (no expiry: only the acquirer can tell
 * how it ended), a sandbox one expiring at createdAt + ttlMs.
 */
export function insertedState(input: Pick<NewPayment, "merchantInitiated" | "isTest">, createdAt: number, ttlMs: number) {
  if (!input.merchantInitiated) return { status: "CREATED" as const, expiresAt: createdAt + ttlMs, chargeRetryAt: null };
  return input.isTest ? { status: "PENDING" as const, expiresAt: createdAt + ttlMs, chargeRetryAt: null } : { status: "PENDING" as const, expiresAt: null, chargeRetryAt: createdAt + ttlMs };
}

/** What a move sets: the fields of its patch, the status, the time, no charge lease once past PENDING, and no deadline once final. */
export const movedFields = (to: PaymentStatus, now: number, patch?: Partial<PaymentRow>) => ({
  ...patch,
  status: to,
  updatedAt: now,
  ...(to === "PENDING" ? {} : { chargeRetryAt: null }),
  ...(isFinal(to) ? { expiresAt: null } : {}),
});

/**
 * The outbox row of a payment event, with the trace context of the work that made it (or, for work
 * outside any trace, a timer's, the payment's create): a move into a notified status, or a saved method's end (`event`).
 */
export function paymentEventRow(
  updated: PaymentRow,
  from: PaymentStatus,
  now: number,
  requestId: string | undefined,
  trace: TraceCarrier | undefined,
  event?: { status: MethodEventStatus; method: SavedMethodRow },
) {
  const status: PaymentEventStatus = event?.status ?? (updated.status as PaymentEventStatus);
  return {
    eventId: paymentEventId(updated.id, status),
    paymentId: updated.id,
    status,
    payload: JSON.stringify(event ? toMethodEvent(updated, event.method, event.status, now) : toPaymentEvent(updated, status, from, now, requestId)),
    requestId: requestId ?? null,
    traceContext: trace ?? updated.traceContext ?? null,
    createdAt: now,
  };
}

/** The event a saved method's end announces, when it announces one. */
export const methodEventStatus = (how: MethodEnd): MethodEventStatus | null =>
  how.notify ? (how.status === "REVOKED" ? "PAYMENT_METHOD_REVOKED" : "PAYMENT_METHOD_EXPIRED") : null;

/** The SET of a saved method's end: its status, when, by whom, and no expiry left to sweep. */
export const methodEndedFields = (how: MethodEnd, now: number) => ({ status: how.status, deactivatedAt: now, revokedBy: how.revokedBy, expiresAt: null });

/** The outbox row of a refund's end, in the trace of the work that ended it, else (a sweeper's) the payment's create. */
export function refundEventRow(done: RefundRow, payment: PaymentRow, now: number, requestId: string | undefined, trace: TraceCarrier | undefined) {
  return {
    eventId: refundEventId(done.id),
    paymentId: done.paymentId,
    kind: "refund" as const,
    status: done.status as RefundEventStatus,
    payload: JSON.stringify(toRefundEvent(done, payment, now, requestId)),
    requestId: requestId ?? null,
    traceContext: trace ?? payment.traceContext ?? null,
    createdAt: now,
  };
}

/** The payment's cell of the daily rollup, and what it gains (+1) or loses (−1). */
export const dailyCell = (row: Pick<PaymentRow, "shopId" | "createdAt" | "method" | "status" | "amountKopecks">, sign: 1 | -1) => ({
  shopId: row.shopId,
  day: moscowDay(row.createdAt),
  method: row.method ?? "",
  status: row.status,
  delta: sign,
  sum: sign * row.amountKopecks,
});

/**
 * A batch's rollup cells summed into the rows that change: one per (shop, status) of the counters
 * and one per cell of the daily rollup, in key order (two batches lock shared rows in one order),
 * those left unchanged by the batch out.
 */
export function rollupRows(cells: ReturnType<typeof dailyCell>[]) {
  const counts = new Map<string, { shopId: string; status: PaymentStatus; count: number }>();
  const daily = new Map<string, { shopId: string; day: string; method: string; status: PaymentStatus; count: number; sumKopecks: number }>();
  for (const c of cells) {
    const ck = `${c.shopId}\u0000${c.status}`;
    const cnt = counts.get(ck) ?? counts.set(ck, { shopId: c.shopId, status: c.status, count: 0 }).get(ck)!;
    cnt.count += c.delta;
    const dk = `${c.shopId}\u0000${c.day}\u0000${c.method}\u0000${c.status}`;
    const d = daily.get(dk) ?? daily.set(dk, { shopId: c.shopId, day: c.day, method: c.method, status: c.status, count: 0, sumKopecks: 0 }).get(dk)!;
    d.count += c.delta;
    d.sumKopecks += c.sum;
  }
  const sorted = <V>(m: Map<string, V>) => [...m.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, v]) => v);
  return { counts: sorted(counts).filter((c) => c.count !== 0), daily: sorted(daily).filter((d) => d.count !== 0 || d.sumKopecks !== 0) };
}

/** The seq range [first, last] of payments created within the bounds asked for; null when empty. */
export function seqWindowOf(bounds: SeqBounds): { first: number; last: number } | null {
  const first = bounds.fromSeq === undefined ? 1 : bounds.fromSeq;
  const last = bounds.toSeq === undefined ? bounds.lastSeq : bounds.toSeq;
  return first === null || last === null || first > last ? null : { first, last };
}

/** An unfiltered page in creation order is a run of seqs: no read needed to know which. */
export function seqsOfPage(window: { first: number; last: number }, offset: number, limit: number, descending: boolean): number[] {
  const { first, last } = window;
  const [lo, hi] = descending ? [Math.max(first, last - offset - limit + 1), last - offset] : [first + offset, Math.min(last, first + offset + limit - 1)];
  if (lo > hi) return [];
  return Array.from({ length: hi - lo + 1 }, (_, i) => (descending ? hi - i : lo + i));
}

/** The PENDING refund row `open` inserts, driven by the caller for leaseMs before the sweeper may take it. */
export function newRefundRow(payment: PaymentRow, req: RefundRequest, amountKopecks: number, takenKopecks: number, now: number, leaseMs: number) {
  return {
    id: Bun.randomUUIDv7(),
    paymentId: payment.id,
    shopId: payment.shopId,
    amountKopecks,
    balanceKopecks: balanceShare(payment, amountKopecks, takenKopecks),
    reason: req.reason ?? null,
    status: "PENDING" as const,
    idempotencyKey: req.idempotencyKey ?? null,
    createdAt: now,
    retryAt: now + leaseMs,
  };
}

/** The refund's SET when it ends: its outcome (a failure as its reason and params), and no more retries. */
export function endedRefund(outcome: RefundOutcome, now: number) {
  return {
    status: outcome.status,
    failureCode: outcome.status === "FAILED" ? outcome.failure.reason : null,
    failureParams: outcome.status === "FAILED" ? outcome.failure.params : null,
    completedAt: now,
    retryAt: null,
  };
}

/** What a SUCCEEDED refund adds to the refunded sums; a failed one adds nothing. */
export const succeededKopecks = (outcome: RefundOutcome, refund: RefundRow) => (outcome.status === "SUCCEEDED" ? refund.amountKopecks : 0);

/** A row of the daily rollup as the contract has it: the rollup keys "no method" as "". */
export const toDailyStatsRow = <R extends { method: string }>(row: R) => ({ ...row, method: (row.method || null) as PaymentMethod | null });

/** The rows of a page read by seq, put in the page's order. */
export function inSeqOrder<R extends { seq: number }>(rows: R[], seqs: number[]): R[] {
  const bySeq = new Map(rows.map((row) => [row.seq, row]));
  return seqs.map((seq) => bySeq.get(seq)!);
}
