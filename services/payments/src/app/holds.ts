import { DomainError, isReason, type CapturePaymentRequest, type Payment } from "@payaccept/contracts";
import { captureReceipt } from "../domain/receipt.ts";
import { holdLapsed } from "../domain/state-machine.ts";
import { toPayment } from "../domain/views.ts";
import { ProviderError, type ProviderOutcome } from "../provider/port.ts";
import type { PaymentRow } from "../store/payments-store.ts";
import { recordAction } from "./audit.ts";
import { ownedPayment, providerOf, shopOf, type PaymentsDeps } from "./deps.ts";
import { applyResult, resultOfState, type ProviderResult } from "./provider-results.ts";

/**
 * Two-stage payments (docs/payments.md, "Two-stage payments"). The acquirer owns the hold: a
 * capture, a void and the deadline each ask it first, it applies exactly one of them, and what it
 * did is committed as one transition from AUTHORIZED; the one whose call lost reads the winner's
 * outcome back and commits that, so nobody answers with a stale AUTHORIZED.
 */

/** The acquirer's session after a capture or void it refused because the other one (or its deadline) came first. */
async function outcomeAfterRefusal(d: PaymentsDeps, row: PaymentRow, e: unknown): Promise<ProviderOutcome> {
  if (!(e instanceof ProviderError)) throw e;
  if (e.kind === "unavailable") throw new DomainError("PROVIDER_NO_ANSWER");
  if (e.reason === "CAPTURE_EXCEEDS_HOLD") throw DomainError.of(e.reason, e.params);
  if (e.reason !== "HOLD_VOIDED" && e.reason !== "HOLD_ALREADY_CAPTURED") throw new DomainError("PROVIDER_REFUSED");
  try {
    return await providerOf(d, row).session(row.providerSessionId!);
  } catch (lookup) {
    if (lookup instanceof ProviderError && lookup.kind === "unavailable") throw new DomainError("PROVIDER_NO_ANSWER");
    throw lookup;
  }
}

/** Asks the acquirer (none in the sandbox) and commits what it did to the hold. */
async function settleHold(d: PaymentsDeps, row: PaymentRow, ask: () => Promise<ProviderOutcome>, sandbox: ProviderResult): Promise<PaymentRow> {
  if (row.isTest) return (await applyResult(d, row, sandbox, null)).row;
  let outcome: ProviderOutcome;
  try {
    outcome = await ask();
  } catch (e) {
    outcome = await outcomeAfterRefusal(d, row, e);
  }
  return (await applyResult(d, row, resultOfState(outcome, d.now()), outcome.sessionId)).row;
}

/**
 * Releases an AUTHORIZED payment's hold: CANCELED before its capture deadline (the merchant's
 * void), EXPIRED from it on; or SUCCESS if a capture got to the acquirer first.
 */
export const releaseHold = (d: PaymentsDeps, row: PaymentRow): Promise<PaymentRow> =>
  settleHold(d, row, () => providerOf(d, row).void(row.providerSessionId!), { kind: "voided", heldTooLong: false });

/** The answer to a capture of a payment that is no longer AUTHORIZED: the capture itself, repeated, or why not. */
function capturedAnswer(d: PaymentsDeps, row: PaymentRow, req: CapturePaymentRequest): Payment {
  if (row.status !== "SUCCESS" || !row.hold) throw new DomainError("PAYMENT_NOT_CAPTURABLE", { status: row.status });
  if (req.amountKopecks !== undefined && req.amountKopecks !== row.amountKopecks) throw new DomainError("HOLD_ALREADY_CAPTURED", { capturedKopecks: row.amountKopecks });
  return toPayment(row, d.paypageUrl);
}

/**
 * AUTHORIZED → SUCCESS with the captured amount (all of the hold by default); idempotent: a
 * repeat with the same amount, or none, answers the captured payment. Recorded in the audit log
 * in the caller's name on every answer of a captured payment (one entry per payment), so a
 * capture whose answer was lost, committed by the acquirer's callback, is recorded by its repeat.
 */
export async function capturePayment(d: PaymentsDeps, shopId: string, id: string, req: CapturePaymentRequest): Promise<Payment> {
  const row = await ownedPayment(d, shopId, id);
  const captured = await capture(d, row, req);
  recordAction(d, "payment.captured", { type: "payment", id }, row, d.now(), {
    orderId: row.orderId,
    amountKopecks: captured.amountKopecks,
    heldKopecks: row.heldKopecks ?? row.amountKopecks,
  });
  return captured;
}

/** The capture itself, or the answer of a payment that is no longer AUTHORIZED. */
async function capture(d: PaymentsDeps, row: PaymentRow, req: CapturePaymentRequest): Promise<Payment> {
  const id = row.id;
  if (row.status !== "AUTHORIZED") return capturedAnswer(d, row, req);
  if (holdLapsed(row, d.now())) return capturedAnswer(d, await releaseHold(d, row), req);
  const held = row.heldKopecks ?? row.amountKopecks;
  const amount = req.amountKopecks ?? held;
  if (amount > held) throw new DomainError("CAPTURE_EXCEEDS_HOLD", { heldKopecks: held });
  const lines = captureReceipt(row.receipt, held, amount, req.receipt, (await shopOf(d, row)).receipts);
  // Kept before the acquirer is asked: a capture committed by its callback (a lost answer, a crash) finds its lines.
  if (lines) await d.repo.keepCaptureReceipt(id, lines);
  const asked = lines ? { ...row, captureReceipt: lines } : row;
  const after = await settleHold(d, asked, () => providerOf(d, row).capture(row.providerSessionId!, amount), { kind: "paid", paidAt: d.now(), amountKopecks: amount, savedMethod: null });
  return capturedAnswer(d, after, req);
}

/**
 * The cancel of an AUTHORIZED payment: the void. CANCELED, or the status that came first (the
 * deadline's EXPIRED, a capture's SUCCESS) refused as for any cancel of a final payment.
 */
export async function voidHold(d: PaymentsDeps, row: PaymentRow): Promise<Payment> {
  const after = await releaseHold(d, row);
  if (after.status !== "CANCELED") throw new DomainError("PAYMENT_NOT_CANCELABLE", { status: after.status });
  recordAction(d, "payment.voided", { type: "payment", id: row.id }, row, after.updatedAt, { orderId: row.orderId, heldKopecks: row.heldKopecks ?? row.amountKopecks });
  return toPayment(after, d.paypageUrl);
}

/**
 * The expiry sweeper's step for one due payment: a CREATED or PENDING one expires; an AUTHORIZED
 * one past its capture deadline has its hold released (EXPIRED). Whether it moved; an acquirer
 * that does not answer leaves the hold for the next sweep.
 */
export async function expireDue(d: PaymentsDeps, id: string, now: number): Promise<boolean> {
  const row = await d.repo.byId(id);
  if (!row) return false;
  if (row.status !== "AUTHORIZED") return (await d.repo.transition(id, "expire", now))?.decision.kind === "move";
  try {
    return (await releaseHold(d, row)).status === "EXPIRED";
  } catch (e) {
    if (!isReason(e, "PROVIDER_NO_ANSWER", "PROVIDER_REFUSED")) throw e;
    d.log.warn({ paymentId: id, reason: e.reason }, "hold not released at its deadline yet; the next sweep asks the acquirer again");
    return false;
  }
}
