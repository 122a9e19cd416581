import type { z } from "zod";
import { DomainError, type CheckoutView, type Payment, type SandboxOutcome, type SandboxOutcomeRequest } from "@payaccept/contracts";
import { sandboxMethodOf } from "../domain/saved-methods.ts";
import { awaitsAuthentication } from "../domain/state-machine.ts";
import { toCheckoutView, toPayment, payUrlOf } from "../domain/views.ts";
import type { PaymentRow } from "../store/payments-store.ts";
import { anyPayment, ownedPayment, shopOf, type PaymentsDeps } from "./deps.ts";
import { startPayment } from "./checkout.ts";
import { applyResult, type ProviderResult, type SavedByProvider } from "./provider-results.ts";

/**
 * Sandbox outcomes (docs/payments.md, "The sandbox from code"): what the buyer or the bank would
 * do to a sandbox payment, applied exactly as the acquirer's result would be (applyResult), so it
 * has the same transitions, events, webhooks and saved methods. No acquirer, no money.
 */

type Outcome = z.infer<typeof SandboxOutcome>;

/** The status an outcome leads to (a hold's SUCCESS is AUTHORIZED): a repeated click, a repeated call. */
const outcomeStatus = (row: PaymentRow, outcome: Outcome) => (outcome === "SUCCESS" ? (row.hold ? "AUTHORIZED" : "SUCCESS") : outcome);

/** The decline a FAILED outcome stands for: its failureCode, by default the card declined. */
const failureOf = (req: SandboxOutcomeRequest) => req.failureCode ?? "CARD_DECLINED";

/** The bank's answer a sandbox outcome stands for; null for the clock's expiry of an unpaid payment. */
function sandboxResult(d: PaymentsDeps, row: PaymentRow, req: SandboxOutcomeRequest, consent: boolean): ProviderResult | null {
  const now = d.now();
  const saved: SavedByProvider | null = consent ? { methodId: "", status: "ACTIVE", revokedBy: null, ...sandboxMethodOf(row.method ?? "CARD", now) } : null;
  if (req.outcome === "SUCCESS") return row.hold ? { kind: "authorized", holdExpiresAt: now + d.captureTtlMs, savedMethod: saved } : { kind: "paid", paidAt: now, amountKopecks: null, savedMethod: saved };
  if (req.outcome === "EXPIRED") return row.status === "AUTHORIZED" ? { kind: "voided", heldTooLong: true } : null;
  const reason = failureOf(req);
  if (reason === "AUTHENTICATION_REQUIRED" && row.merchantInitiated) return { kind: "challenge", authenticationUrl: payUrlOf(d.paypageUrl, row.id) };
  // A charge declined as revoked or expired ends its method, as the bank's decline does.
  const ended: SavedByProvider | null =
    row.merchantInitiated && (reason === "METHOD_REVOKED" || reason === "CARD_EXPIRED")
      ? { methodId: "", method: row.method ?? "CARD", card: null, sbp: null, status: reason === "METHOD_REVOKED" ? "REVOKED" : "EXPIRED", revokedBy: reason === "METHOD_REVOKED" ? "ISSUER" : null }
      : null;
  return { kind: "declined", failure: { reason, params: {} }, savedMethod: ended };
}

/** Applies a sandbox outcome; undefined when it does not apply to the payment's status. */
async function applySandbox(d: PaymentsDeps, row: PaymentRow, req: SandboxOutcomeRequest, consent: boolean): Promise<PaymentRow | undefined> {
  const result = sandboxResult(d, row, req, consent);
  if (!result) {
    const { decision, row: after } = (await d.repo.transition(row.id, "expire", d.now(), { requestId: d.requestId }))!;
    return decision.kind === "refused" ? undefined : after;
  }
  const applied = await applyResult(d, row, result, null);
  return applied.result === "ignored" ? undefined : applied.row;
}

/**
 * Whether the payment already is where this outcome takes it: a repeat of the call (a retry whose
 * answer was lost, a hedged copy that reached another replica after the first was done) is
 * answered with the payment as it is, like the first call, not refused as an outcome its status
 * does not take.
 */
function reached(row: PaymentRow, req: SandboxOutcomeRequest): boolean {
  return row.status === outcomeStatus(row, req.outcome) && (req.outcome !== "FAILED" || row.failureCode === failureOf(req));
}

/**
 * The shop's test helper: a CREATED payment is started first (as a buyer would, with the payment's
 * method, else a card when the shop takes cards), and the buyer is taken to agree to save the method.
 */
export async function completeSandbox(d: PaymentsDeps, shopId: string, id: string, req: SandboxOutcomeRequest): Promise<Payment> {
  let row = await ownedPayment(d, shopId, id);
  if (!row.isTest) throw new DomainError("SANDBOX_OUTCOME_LIVE_PAYMENT");
  if (reached(row, req)) return toPayment(row, d.paypageUrl);
  if (row.status === "CREATED" && req.outcome !== "EXPIRED") {
    const { methods } = await shopOf(d, row);
    await startPayment(d, id, row.method ?? (methods.includes("CARD") ? "CARD" : methods[0]!), true);
    row = (await d.repo.byId(id))!;
  }
  const after = await applySandbox(d, row, req, true);
  if (after) return toPayment(after, d.paypageUrl);
  // Moved meanwhile by another call, perhaps a copy of this one: the same answer if it went where this outcome goes.
  const now = (await d.repo.byId(id)) ?? row;
  if (reached(now, req)) return toPayment(now, d.paypageUrl);
  throw new DomainError("SANDBOX_OUTCOME_NOT_APPLICABLE", { status: now.status, outcome: req.outcome });
}

/**
 * The tester's pick on a sandbox payment page: it decides only a PENDING payment, or a charge
 * waiting for the buyer's authentication (the page's stand-in for the bank's check; a repeated
 * click answers the payment as it is), and saves the method only if the buyer agreed on the page.
 */
export async function pageOutcome(d: PaymentsDeps, id: string, outcome: Outcome): Promise<CheckoutView> {
  const row = await anyPayment(d, id);
  if (!row.isTest) throw new DomainError("SANDBOX_OUTCOME_LIVE_PAYMENT");
  const shop = await shopOf(d, row);
  if (row.status === outcomeStatus(row, outcome)) return toCheckoutView(row, shop, d.paypageUrl);
  if (row.status !== "PENDING" && !awaitsAuthentication(row)) throw new DomainError("SANDBOX_OUTCOME_NOT_PENDING", { status: row.status });
  const after = await applySandbox(d, row, { outcome }, row.saveConsent === true || shop.savedMethodConsent === "ALWAYS");
  if (!after) throw new DomainError("SANDBOX_OUTCOME_NOT_PENDING", { status: (await anyPayment(d, id)).status });
  return toCheckoutView(after, shop, d.paypageUrl);
}
