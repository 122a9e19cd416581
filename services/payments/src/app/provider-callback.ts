import type { ConnectorId } from "@payaccept/contracts";
import { LEGACY_CONNECTOR } from "../connectors/connectors.ts";
import type { ReadCallback } from "../provider/callback.ts";
import { tracePayment, type PaymentsDeps } from "./deps.ts";
import { applyResult, outcomeKey, resultOfCallback } from "./provider-results.ts";
import { endMethodAsProviderSays } from "./saved-methods.ts";

/**
 * What a callback did: it moved the payment, repeated a result already applied, was ignored, or its
 * money was returned; `retry` asks the provider to send it again (the return did not happen yet).
 */
export type CallbackOutcome = { result: "applied" | "repeat" | "ignored" | "returned" | "retry"; status: string | null; reason?: string };

/**
 * Applies a verified provider result (docs/acquirer-protocol.md, "Callbacks") from the connector
 * it came through (the emulator's callbacks, T-Bank's notifications) as the session's result
 * would be (applyResult): PAID, AUTHORIZED, CAPTURED, DECLINED and VOIDED of the payment's
 * session, and METHOD_REVOKED of a saved method. Whatever cannot apply is acknowledged and
 * ignored, so the provider stops retrying it; repeats change nothing. Only the payment's own
 * session at its own connector counts, except for a charge that has not heard its session yet
 * (its answer was lost) from the connector of the method it charges.
 */
export async function applyProviderCallback(d: PaymentsDeps, read: ReadCallback, connector: ConnectorId): Promise<CallbackOutcome> {
  const cb = read.callback;
  if (read.known?.event === "METHOD_REVOKED") {
    const local = await d.methods.byProviderId(read.known.savedMethod.methodId);
    if (!local || (local.connector ?? LEGACY_CONNECTOR) !== connector) return { result: "ignored", status: null, reason: "unknown saved method" };
    const ended = await endMethodAsProviderSays(d, local.id, read.known.savedMethod);
    return { result: ended ? "applied" : "repeat", status: (await d.methods.byId(local.id))!.status };
  }
  const result = read.known ? resultOfCallback(read, d.now()) : undefined;
  const outcome = result && outcomeKey(connector, cb.sessionId, result);
  // The charge's answer comes first (awaited while this process is at the acquirer with it), and when this process applied the same outcome this is its repeat.
  await d.chargeOutcomes.charged(cb.merchantPaymentId);
  const repeat = await d.chargeOutcomes.repeatOf(cb.merchantPaymentId, outcome);
  if (repeat) {
    tracePayment(repeat);
    return { result: "repeat", status: repeat.status };
  }
  const row = await d.repo.byId(cb.merchantPaymentId);
  const ignored = (reason: string): CallbackOutcome => ({ result: "ignored", status: row?.status ?? null, reason });
  if (!row) return ignored("unknown payment");
  tracePayment(row);
  if (row.isTest) return ignored("sandbox payments take no provider results");
  const learning = row.merchantInitiated && row.providerSessionId === null;
  const sessionConnector = learning ? ((await d.methods.byId(row.savedMethodId!))?.connector ?? LEGACY_CONNECTOR) : (row.connector ?? LEGACY_CONNECTOR);
  if (sessionConnector !== connector) return ignored("not the payment's connector");
  if (row.providerSessionId !== cb.sessionId && !learning) return ignored("not the payment's provider session");
  if (!result) return ignored(`unknown event ${cb.event}`);
  const applying = applyResult(d, row, result, cb.sessionId, connector);
  if (row.merchantInitiated && outcome) d.chargeOutcomes.applying(row.id, outcome, applying);
  const applied = await applying;
  return { result: applied.result, status: applied.row.status, ...(applied.reason ? { reason: applied.reason } : {}) };
}
