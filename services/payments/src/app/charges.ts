import { DomainError, type CreatePaymentRequest, type ShopRecord } from "@payaccept/contracts";
import { commissionFor } from "../domain/commission.ts";
import { detailsOf } from "../domain/saved-methods.ts";
import { methodChargeable } from "../domain/state-machine.ts";
import { payUrlOf } from "../domain/views.ts";
import { ProviderError, type ProviderOutcome } from "../provider/port.ts";
import type { PaymentRow, SavedMethodRow } from "../store/payments-store.ts";
import { LEGACY_CONNECTOR } from "../connectors/connectors.ts";
import type { CreateTerms, PaymentsDeps } from "./deps.ts";
import { applyResult, outcomeKey, resultOfState } from "./provider-results.ts";

/**
 * Merchant-initiated charges (docs/payments.md, "Charges without the buyer"): a payment born
 * PENDING with a saved method, charged at the acquirer under its own id (`chargeId` = the payment
 * id, so the acquirer never charges it twice), its outcome committed as any payment's. Whoever
 * stops between the steps leaves it PENDING with a lease; the charge sweeper then finds the outcome
 * by the charge's id, or charges it (safe: none was made).
 */

/** What a create with the saved method `saved` becomes besides its request: the method decides the payment's, and the commission follows. */
export function chargeTerms(shop: ShopRecord, req: CreatePaymentRequest, saved: SavedMethodRow): CreateTerms {
  if (saved.isTest !== shop.sandbox) throw new DomainError("METHOD_NOT_FOUND");
  if (!methodChargeable(saved.status)) throw new DomainError("SAVED_METHOD_INACTIVE", { status: saved.status });
  if (req.capture === false && saved.method === "SBP") throw new DomainError("HOLD_NOT_FOR_SBP");
  if (!shop.methods.includes(saved.method)) throw new DomainError("METHOD_NOT_AVAILABLE", { method: saved.method });
  return {
    method: saved.method,
    commissionKopecks: commissionFor(req.amountKopecks, shop.tariff[saved.method]),
    merchantInitiated: true,
    savedMethodId: saved.id,
    paymentMethod: detailsOf(saved),
  };
}

/**
 * A live charge not decided yet: its create is at the acquirer (or lost its answer, and the
 * callback or the sweeper will decide it). A sandbox charge stays PENDING until its outcome is given.
 */
export const chargeInFlight = (row: PaymentRow): boolean => row.merchantInitiated && !row.isTest && row.status === "PENDING";

/** A charge's end without an acquirer decision: refused by the acquirer, or never made in time. */
async function chargeFailed(d: PaymentsDeps, row: PaymentRow, why: DomainError): Promise<PaymentRow> {
  const moved = await d.repo.transition(row.id, "decline", d.now(), { patch: () => ({ failureCode: why.reason, failureParams: why.params }), requestId: d.requestId });
  return moved!.row;
}

/**
 * Commits what the acquirer (the saved method's connector) answered about the charge, unless its
 * callback came first and this process applied the same outcome (ChargeOutcomes).
 */
async function applyCharge(d: PaymentsDeps, row: PaymentRow, saved: SavedMethodRow, state: ProviderOutcome): Promise<PaymentRow> {
  const result = resultOfState(state, d.now());
  const connector = connectorOf(saved);
  const outcome = outcomeKey(connector, state.sessionId, result);
  const repeat = await d.chargeOutcomes.repeatOf(row.id, outcome);
  if (repeat) return repeat;
  const applying = applyResult(d, row, result, state.sessionId, connector);
  if (outcome) d.chargeOutcomes.applying(row.id, outcome, applying);
  return (await applying).row;
}

/** A saved method is charged where it was saved: its token exists at that acquirer only. */
const connectorOf = (saved: SavedMethodRow) => saved.connector ?? LEGACY_CONNECTOR;
const savedOf = async (d: PaymentsDeps, row: PaymentRow) => (await d.methods.byId(row.savedMethodId!))!;

/**
 * One attempt at the acquirer with the payment's saved method: its decision committed, or the
 * payment left PENDING when no answer came (the callback, or the sweeper's lookup, ends it). A
 * refusal (the acquirer does not know the method, …) ends it FAILED with the acquirer's reason.
 */
export const chargeOnce = (d: PaymentsDeps, row: PaymentRow, saved: SavedMethodRow): Promise<PaymentRow> => d.chargeOutcomes.charge(row.id, () => chargeAt(d, row, saved));

async function chargeAt(d: PaymentsDeps, row: PaymentRow, saved: SavedMethodRow): Promise<PaymentRow> {
  let state: ProviderOutcome;
  try {
    state = await d.connectors.portOf(connectorOf(saved)).charge({
      chargeId: row.id,
      methodId: saved.providerMethodId!,
      amountKopecks: row.amountKopecks,
      description: row.description,
      returnUrl: payUrlOf(d.paypageUrl, row.id),
      hold: row.hold,
      expiresAt: row.createdAt + d.pendingTtlMs,
    });
  } catch (e) {
    if (!(e instanceof ProviderError)) throw e;
    if (e.kind === "rejected") return chargeFailed(d, row, DomainError.of(e.reason, e.params));
    d.log.warn({ paymentId: row.id, err: e.message }, "charge without an answer; its callback or the charge sweeper ends it");
    return row;
  }
  return applyCharge(d, row, saved, state);
}

/**
 * The charge sweeper's step for a claimed PENDING charge: the outcome by the charge's own id if
 * the acquirer has one, else the charge made now; a charge the acquirer never made within
 * PENDING_TTL ends FAILED (a PAID that still comes for it is returned to the buyer).
 */
export async function driveCharge(d: PaymentsDeps, row: PaymentRow): Promise<PaymentRow> {
  const saved = await savedOf(d, row);
  let state: ProviderOutcome | null;
  try {
    state = await d.connectors.portOf(connectorOf(saved)).findCharge(row.id, saved.providerMethodId!);
  } catch (e) {
    if (!(e instanceof ProviderError) || e.kind !== "unavailable") throw e;
    return row;
  }
  if (state) return applyCharge(d, row, saved, state);
  if (d.now() - row.createdAt >= d.pendingTtlMs) return chargeFailed(d, row, new DomainError("PROVIDER_UNAVAILABLE"));
  return chargeOnce(d, row, saved);
}

/** The charge sweeper's step by id: claimed (one driver at a time), then driven. Whether it ended. */
export async function retryCharge(d: PaymentsDeps, id: string, now: number): Promise<boolean> {
  const claimed = await d.repo.claimCharge(id, now, d.chargeLeaseMs);
  return claimed !== undefined && (await driveCharge(d, claimed)).status !== "PENDING";
}
