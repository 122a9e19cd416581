import { DomainError, type ConnectorId, type ProviderSavedMethod } from "@payaccept/contracts";
import { newSavedMethod, savedOnPayment } from "../domain/saved-methods.ts";
import { authorizedTrigger, awaitsAuthentication, paidTooLate, paidTrigger, releaseTrigger, type PaymentTrigger } from "../domain/state-machine.ts";
import type { ProviderFailure, ProviderOutcome } from "../provider/port.ts";
import type { ReadCallback } from "../provider/callback.ts";
import type { OutcomeKey } from "./charge-outcomes.ts";
import type { PaymentRow, TransitionOptions } from "../store/payments-store.ts";
import { capturedFields } from "./capture-fields.ts";
import { providerOf, type PaymentsDeps } from "./deps.ts";
import { endMethodAsProviderSays } from "./saved-methods.ts";

/**
 * What the acquirer says became of a session, in payments' terms, whether it came as a callback
 * or as the session's state (a charge's answer, a lookup after a lost answer, the state a losing
 * capture or void reads back): one meaning, applied one way.
 */
/** A method as the acquirer (or the sandbox) saved or now has it. */
export type SavedByProvider = Pick<ProviderSavedMethod, "methodId" | "method" | "status" | "card" | "sbp" | "revokedBy">;

export type ProviderResult =
  /** Money taken: the buyer paid, a charge was approved or its authentication passed, a hold was captured (`amountKopecks`). */
  | { kind: "paid"; paidAt: number; amountKopecks: number | null; savedMethod: SavedByProvider | null }
  /** A hold: the card authorised, the amount held until `holdExpiresAt` (the acquirer's own deadline). */
  | { kind: "authorized"; holdExpiresAt: number; savedMethod: SavedByProvider | null }
  /** Declined; for a charge, `savedMethod` is the charged method as the bank now has it (revoked, expired). */
  | { kind: "declined"; failure: ProviderFailure; savedMethod: SavedByProvider | null }
  /** A charge the bank wants the buyer to confirm, at `authenticationUrl`. */
  | { kind: "challenge"; authenticationUrl: string }
  /** A hold released: by the merchant's void (ours), or by the acquirer's own deadline (`heldTooLong`). */
  | { kind: "voided"; heldTooLong: boolean }
  /** Nothing decided yet (OPEN), or nothing that moves a payment (a method switch's CANCELED, a binding). */
  | { kind: "none" };

const ms = (iso: string | null, dflt: number) => (iso === null ? dflt : Date.parse(iso));

/** A session's state as a result. */
export function resultOfState(s: ProviderOutcome, now: number): ProviderResult {
  switch (s.status) {
    case "PAID":
      return { kind: "paid", paidAt: ms(s.paidAt, now), amountKopecks: s.capturedKopecks, savedMethod: s.savedMethod };
    case "AUTHORIZED":
      return { kind: "authorized", holdExpiresAt: ms(s.holdExpiresAt, now), savedMethod: s.savedMethod };
    case "DECLINED":
      return { kind: "declined", failure: s.failure!, savedMethod: s.savedMethod };
    case "CHALLENGE":
      return s.authenticationUrl ? { kind: "challenge", authenticationUrl: s.authenticationUrl } : { kind: "none" };
    case "VOIDED":
      return { kind: "voided", heldTooLong: s.reason === "hold_expired" };
    default:
      return { kind: "none" };
  }
}

/** A verified callback as a result; METHOD_REVOKED is about a method, not a session (applyProviderCallback). */
export function resultOfCallback({ known, failure }: ReadCallback, now: number): ProviderResult {
  switch (known?.event) {
    case "PAID":
      return { kind: "paid", paidAt: Date.parse(known.paidAt), amountKopecks: known.amountKopecks, savedMethod: known.savedMethod };
    case "CAPTURED":
      return { kind: "paid", paidAt: Date.parse(known.paidAt), amountKopecks: known.amountKopecks, savedMethod: null };
    case "AUTHORIZED":
      return { kind: "authorized", holdExpiresAt: ms(known.holdExpiresAt, now), savedMethod: known.savedMethod };
    case "DECLINED":
      return { kind: "declined", failure: failure!, savedMethod: known.savedMethod };
    case "VOIDED":
      return { kind: "voided", heldTooLong: known.reason === "hold_expired" };
    default:
      return { kind: "none" };
  }
}

/**
 * The key of a result whose repeat changes nothing (ChargeOutcomes); none for a decline that
 * reports the charged method ended (the acquirer may say so in one report only, and each report
 * that does ends it).
 */
export const outcomeKey = (connector: ConnectorId, sessionId: string, result: ProviderResult): OutcomeKey | undefined =>
  result.kind === "declined" && result.savedMethod !== null && result.savedMethod.status !== "ACTIVE" ? undefined : { connector, sessionId, kind: result.kind };

/**
 * What applying a result did: moved the payment, repeated a result already applied, was ignored,
 * or its money was returned; `retry` asks the provider to send it again (the return did not happen yet).
 */
export type Applied = { result: "applied" | "repeat" | "ignored" | "returned" | "retry"; row: PaymentRow; reason?: string };

/**
 * What the move saves: the method the buyer agreed to save, once paid or held (a charge saves
 * none: it used one). A sandbox method has no acquirer token.
 */
function savingMethod(d: PaymentsDeps, row: PaymentRow, saved: SavedByProvider | null): Pick<TransitionOptions, "savedMethod"> & { fields: Partial<PaymentRow> } {
  if (!saved || !row.saveMethod || row.merchantInitiated || row.savedMethodId !== null) return { fields: {} };
  const savedMethod = newSavedMethod(row, saved, row.isTest ? null : saved.methodId, d.now());
  return { savedMethod, fields: savedOnPayment(savedMethod) };
}

/** A merchant-initiated payment's failure, kept as a reason and its parameters (a buyer's payment keeps none: its FAILED stays the spec's). */
const failureFields = (row: PaymentRow, failure: ProviderFailure | DomainError): Partial<PaymentRow> =>
  row.merchantInitiated ? { failureCode: failure.reason, failureParams: failure.params } : {};

/**
 * Applies what the acquirer says became of the payment's session (`sessionId`; null in the
 * sandbox, which has none) as one transition of the state machine. Whatever cannot apply is
 * ignored (and so acknowledged, for a callback); a repeat changes nothing. A card paid once the
 * payment can no longer be paid is returned to the buyer. A charge whose answer was lost learns
 * its session here, and the connector it lives at (`connector`).
 */
export async function applyResult(d: PaymentsDeps, row: PaymentRow, result: ProviderResult, sessionId: string | null, connector?: ConnectorId): Promise<Applied> {
  const now = d.now();
  const session: Partial<PaymentRow> =
    row.providerSessionId === null && sessionId !== null ? { providerSessionId: sessionId, ...(connector === undefined ? {} : { connector }) } : {};
  let trigger: PaymentTrigger;
  let opts: TransitionOptions;
  switch (result.kind) {
    case "none":
      return { result: "ignored", row, reason: "nothing decided yet" };
    case "paid": {
      trigger = paidTrigger(row);
      if (trigger === "capture") {
        const amount = result.amountKopecks ?? row.amountKopecks;
        const fields = await capturedFields(d, row, amount, result.paidAt);
        opts = { patch: () => fields };
        break;
      }
      const { savedMethod, fields } = savingMethod(d, row, result.savedMethod);
      opts = { savedMethod, patch: () => ({ ...session, ...fields, paidAt: result.paidAt, failureCode: null, failureParams: null, authentication: null }) };
      break;
    }
    case "authorized": {
      // A one-stage payment's authorisation is a step of its payment (T-Bank notifies it before CONFIRMED): not a hold.
      if (!row.hold) return { result: "ignored", row, reason: "an authorisation of a one-stage payment; its payment follows" };
      trigger = authorizedTrigger(row);
      const { savedMethod, fields } = savingMethod(d, row, result.savedMethod);
      const deadline = Math.min(now + d.captureTtlMs, result.holdExpiresAt);
      opts = { savedMethod, patch: () => ({ ...session, ...fields, expiresAt: deadline, failureCode: null, failureParams: null, authentication: null }) };
      break;
    }
    case "declined": {
      // The charged method's end, as the bank reported it, before the payment's: a crash between
      // the two leaves the charge PENDING, and its sweeper applies the decline again.
      if (row.merchantInitiated && result.savedMethod && row.savedMethodId) await endMethodAsProviderSays(d, row.savedMethodId, result.savedMethod);
      trigger = awaitsAuthentication(row) ? "failAuthentication" : "decline";
      opts = { patch: () => ({ ...session, ...failureFields(row, result.failure), authentication: null }) };
      break;
    }
    case "challenge": {
      trigger = "decline";
      const authentication = { url: result.authenticationUrl, expiresAt: row.createdAt + d.pendingTtlMs };
      opts = { patch: () => ({ ...session, ...failureFields(row, new DomainError("AUTHENTICATION_REQUIRED")), authentication }) };
      break;
    }
    case "voided":
      trigger = releaseTrigger(row, now, result.heldTooLong);
      opts = {};
      break;
  }
  const guarded = trigger === "authenticate" || trigger === "authenticateHold" || trigger === "failAuthentication";
  const { decision, row: after } = (await d.repo.transition(row.id, trigger, now, { ...opts, onlyIf: guarded ? awaitsAuthentication : undefined, requestId: d.requestId }))!;
  if (decision.kind === "move") return { result: "applied", row: after };
  if (decision.kind === "already") return { result: "repeat", row: after };
  if (sessionId !== null && paidTooLate(trigger, after.status)) return returnRefusedCard(d, after, sessionId);
  return { result: "ignored", row: after, reason: `${result.kind} does not apply to a ${after.status} payment` };
}

/**
 * Refunds a card payment the state machine refused. Idempotent at the provider by the refund id
 * (one return per session: the session id is the refund id), so a failure is answered `retry`: the provider sends the callback again, and with it
 * the refund is tried again, until it is done.
 */
async function returnRefusedCard(d: PaymentsDeps, row: PaymentRow, sessionId: string): Promise<Applied> {
  try {
    await providerOf(d, row).refund(sessionId, row.amountKopecks, sessionId, { paidKopecks: row.amountKopecks, refundedKopecks: 0, refundingKopecks: row.amountKopecks });
  } catch (e) {
    d.log.error({ err: e, paymentId: row.id, sessionId }, "a card paid after the deadline could not be returned yet; the provider will retry");
    return { result: "retry", row, reason: `the return of a card paid after the deadline failed: ${(e as Error).message}` };
  }
  return { result: "returned", row, reason: `a card payment does not apply to a ${row.status} payment; the money was returned` };
}
