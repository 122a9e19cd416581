import { DomainError, type PaymentCredit, type Refund, type RefundList } from "@payaccept/contracts";
import { settledWithin } from "@payaccept/platform";
import { toPaymentCredit, toRefund } from "../domain/views.ts";
import { ProviderError } from "../provider/port.ts";
import type { PaymentRow, RefundRequest, RefundRow } from "../store/payments-store.ts";
import { recordAction } from "./audit.ts";
import { ownedPayment, providerOf, type PaymentsDeps } from "./deps.ts";

/**
 * A full or partial refund, as a saga that survives any interruption (docs/payments.md, "Refunds"):
 * 1. the refund is recorded PENDING and its amount promised on the payment (one transaction);
 * 2. the balance holds the refund's share, keyed by the refund id (a repeat holds nothing more),
 *    crediting the payment's SUCCESS first if the stream has not brought its event yet;
 * 3. the provider returns the money, keyed by the refund id (a repeat refunds nothing more);
 * 4. the refund ends SUCCEEDED or FAILED with its RefundEvent (and the payment's REFUNDED event
 *    when it is now fully refunded), in one transaction; the balance turns its hold into a debit
 *    or gives it back when it reads that event.
 * Whoever stops in the middle (a timeout, a crash) leaves a PENDING refund that the refund sweeper
 * drives again from step 2 once its lease has run out, until it ends.
 */
export async function requestRefund(d: PaymentsDeps, shopId: string, id: string, req: RefundRequest): Promise<Refund> {
  const payment = await ownedPayment(d, shopId, id);
  const { refund, created } = await d.refunds.open(payment, req, d.now(), d.refundLeaseMs);
  // Recorded on a repeat too: one entry, even when the first one's was lost.
  recordAction(d, "refund.created", { type: "refund", id: refund.id }, payment, refund.createdAt, {
    paymentId: payment.id,
    orderId: payment.orderId,
    amountKopecks: refund.amountKopecks,
    reason: refund.reason,
  });
  // A repeat that finds the refund PENDING is most often a copy of a call whose first copy still
  // waits for the balance or the acquirer: it waits for that copy's outcome (platform's copies.ts).
  const outcome = created ? await driveRefund(d, refund) : await settledWithin(refund, () => d.refunds.byId(refund.id), refundEnded, d.repeatWaitMs?.() ?? 0);
  return answerOf(outcome);
}

const refundEnded = (r: RefundRow) => r.status !== "PENDING";

/** The balance's refusal to hold a refund's share (its one CONFLICT, rpcs.balance.reserveRefund): the refund is recorded FAILED with it. */
const BALANCE_REFUSAL = "REFUND_EXCEEDS_AVAILABLE";

/**
 * What a refund call answers, the first one, its copies and its repeats alike: the refund; or, when
 * the balance could not cover it, the balance's CONFLICT (docs/payments.md, "Rules and refusals").
 */
function answerOf(row: RefundRow): Refund {
  if (row.status === "FAILED" && row.failureCode === BALANCE_REFUSAL) throw DomainError.of(BALANCE_REFUSAL, row.failureParams ?? {});
  return toRefund(row);
}

export async function listRefunds(d: PaymentsDeps, shopId: string, id: string): Promise<RefundList> {
  return { items: (await d.refunds.ofPayment((await ownedPayment(d, shopId, id)).id)).map(toRefund) };
}

/**
 * Steps 2–4 for a PENDING refund. Returns it ended, or still PENDING when a step's outcome is
 * unknown (no answer from the balance or the provider): the sweeper tries again later, which is
 * safe because both steps are idempotent by the refund id.
 */
export async function driveRefund(d: PaymentsDeps, refund: RefundRow): Promise<RefundRow> {
  const payment = (await d.repo.byId(refund.paymentId))!;
  // Sandbox money is pretend money: no balance, no provider.
  if (payment.isTest) return d.refunds.end(refund.id, { status: "SUCCEEDED" }, d.now(), d.requestId);
  if (!payment.providerSessionId) return d.refunds.end(refund.id, { status: "FAILED", failure: new DomainError("REFUND_NO_PROVIDER_SESSION") }, d.now(), d.requestId);
  if (refund.balanceKopecks > 0) {
    try {
      const { reserved } = await d.balance.reserveRefund({
        refundId: refund.id,
        accountId: payment.accountId,
        paymentId: payment.id,
        amountKopecks: refund.balanceKopecks,
        credit: await successCredit(d, payment),
      }, d.requestId);
      // The hold was already given back: the refund ended FAILED meanwhile.
      if (!reserved) return (await d.refunds.byId(refund.id))!;
    } catch (e) {
      if (!(e instanceof DomainError)) throw e;
      if (e.code !== "CONFLICT") return unknownOutcome(d, refund, "balance", e);
      return d.refunds.end(refund.id, { status: "FAILED", failure: e }, d.now(), d.requestId);
    }
  }
  try {
    // The payment's figures as they are now: a connector whose bank cannot recognise a repeated refund compares them with its own.
    const now = (await d.repo.byId(payment.id))!;
    const ledger = { paidKopecks: now.amountKopecks, refundedKopecks: now.refundedKopecks, refundingKopecks: now.refundingKopecks };
    const answer = await providerOf(d, payment).refund(payment.providerSessionId, refund.amountKopecks, refund.id, ledger);
    const outcome =
      answer.status === "SUCCEEDED"
        ? ({ status: "SUCCEEDED" } as const)
        : ({ status: "FAILED", failure: new DomainError("REFUND_DECLINED", { detail: answer.reason ?? "-" }) } as const);
    return d.refunds.end(refund.id, outcome, d.now(), d.requestId);
  } catch (e) {
    if (!(e instanceof ProviderError)) throw e;
    if (e.kind === "unavailable") return unknownOutcome(d, refund, "acquirer", e);
    return d.refunds.end(refund.id, { status: "FAILED", failure: new DomainError("PROVIDER_REFUSED") }, d.now(), d.requestId);
  }
}

/**
 * The payment's SUCCESS as its event credits the balance. The hold carries it because the refund can
 * reach the balance before the event (docs/balance.md, "A refund before its payment's event").
 */
async function successCredit(d: PaymentsDeps, payment: PaymentRow): Promise<PaymentCredit> {
  const success = (await d.repo.finalEvents(payment.id)).find((e) => e.status === "SUCCESS");
  // Only a SUCCESS payment opens a refund, and its move to SUCCESS wrote paidAt and this event in one transaction.
  if (!success || payment.paidAt === null) throw new Error(`payment ${payment.id} has a refund but no SUCCESS event`);
  return toPaymentCredit(payment, payment.paidAt, success.at);
}

async function unknownOutcome(d: PaymentsDeps, refund: RefundRow, step: string, err: Error): Promise<RefundRow> {
  d.log.warn({ refundId: refund.id, paymentId: refund.paymentId, step, err: err.message }, "refund step without an answer; the refund sweeper will retry it");
  return (await d.refunds.byId(refund.id))!;
}
