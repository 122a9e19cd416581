import type { ProviderReason, ProviderSessionState } from "@payaccept/contracts";
import type { ProviderFailure, ProviderOutcome } from "./port.ts";

/** The acquirer's decline reasons in the catalogue's terms; any other is a plain PROVIDER_DECLINED naming it. */
const DECLINES: Partial<Record<ProviderReason, ProviderFailure["reason"]>> = {
  declined_by_buyer: "DECLINED_BY_BUYER",
  declined_by_payer: "DECLINED_BY_BUYER",
  card_declined: "CARD_DECLINED",
  "3ds_failed": "AUTHENTICATION_FAILED",
  insufficient_funds: "INSUFFICIENT_FUNDS",
  card_expired: "CARD_EXPIRED",
  method_revoked: "METHOD_REVOKED",
};

/** Why a decline happened, as the catalogue says it. */
export function declineFailure(providerReason: string | null): ProviderFailure {
  const known = providerReason ? DECLINES[providerReason as ProviderReason] : undefined;
  return known ? { reason: known, params: {} } : { reason: "PROVIDER_DECLINED", params: { detail: providerReason ?? "no reason given" } };
}

/** A session state with its failure: a decline's reason, or the bank's request to authenticate. */
export function outcomeOf(state: ProviderSessionState): ProviderOutcome {
  const failure =
    state.status === "DECLINED" ? declineFailure(state.reason) : state.status === "CHALLENGE" ? { reason: "AUTHENTICATION_REQUIRED" as const, params: {} } : null;
  return { ...state, failure };
}
