import type { ProviderSavedMethod, ProviderSessionStatus } from "@payaccept/contracts";
import type { ProviderFailure, ProviderOutcome } from "../../provider/port.ts";
import { declineOf } from "./errors.ts";

/**
 * A bank payment's status (the bank's "Статусная модель платежа") as a session's. Refunds of a
 * paid payment (REFUNDING … REFUNDED) leave it PAID: refunds are payments' own records. Every
 * status in progress (NEW, FORM_SHOWED, AUTHORIZING, 3DS_CHECKING, CONFIRMING, CONFIRM_CHECKING,
 * REVERSING…) and any this build does not know is OPEN: nothing decided yet. DEADLINE_EXPIRED is
 * the session closed unpaid at RedirectDueDate (payments' own expiry decides the payment).
 */
export function sessionStatusOf(status: string): ProviderSessionStatus {
  switch (status) {
    case "AUTHORIZED":
    case "PARTIAL_REVERSED":
      return "AUTHORIZED";
    case "CONFIRMED":
    case "REFUNDING":
    case "ASYNC_REFUNDING":
    case "PARTIAL_REFUNDED":
    case "REFUNDED":
      return "PAID";
    case "REVERSED":
      return "VOIDED";
    case "REJECTED":
    case "AUTH_FAIL":
    case "ATTEMPTS_EXPIRED":
      return "DECLINED";
    case "CANCELED":
    case "DEADLINE_EXPIRED":
      return "CANCELED";
    default:
      return "OPEN";
  }
}

/** The bank holds a two-stage payment up to seven days (its "Двухстадийный платеж"); payments' CAPTURE_TTL acts first. */
export const HOLD_DAYS_MS = 7 * 24 * 3600 * 1000;

/** Why the bank declined, as the provider protocol's reason and the catalogue's. */
export function declineReasonOf(status: string, errorCode: string | undefined): { reason: string; failure: ProviderFailure } {
  if (status === "AUTH_FAIL") return { reason: "3ds_failed", failure: { reason: "AUTHENTICATION_FAILED", params: {} } };
  const code = errorCode && errorCode !== "0" ? errorCode : null;
  if (code === null) return { reason: `tbank_${status.toLowerCase()}`, failure: { reason: "PROVIDER_DECLINED", params: { detail: `T-Bank ${status}` } } };
  return { reason: `tbank_${code}`, failure: declineOf(code) };
}

/**
 * A bank payment as a session's outcome. The bank reports no time of an operation: `paidAt` is
 * when this connector learned it, and a hold's end is seven days from then.
 */
export function outcomeOf(
  sessionId: string,
  bank: { Status: string; Amount: number },
  extra: { nowMs: number; errorCode?: string; savedMethod?: ProviderSavedMethod | null; authenticationUrl?: string | null; failure?: ProviderFailure },
): ProviderOutcome {
  const status = extra.authenticationUrl ? "CHALLENGE" : sessionStatusOf(bank.Status);
  const decline = status === "DECLINED" ? declineReasonOf(bank.Status, extra.errorCode) : null;
  return {
    sessionId,
    status,
    amountKopecks: bank.Amount,
    capturedKopecks: status === "PAID" && bank.Amount > 0 ? bank.Amount : null,
    holdExpiresAt: status === "AUTHORIZED" ? new Date(extra.nowMs + HOLD_DAYS_MS).toISOString() : null,
    paidAt: status === "PAID" ? new Date(extra.nowMs).toISOString() : null,
    reason: decline?.reason ?? (status === "VOIDED" ? "voided_by_merchant" : null),
    authenticationUrl: extra.authenticationUrl ?? null,
    savedMethod: extra.savedMethod ?? null,
    failure: extra.failure ?? decline?.failure ?? (status === "CHALLENGE" ? { reason: "AUTHENTICATION_REQUIRED", params: {} } : null),
  };
}
