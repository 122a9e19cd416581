import { DomainError, type ProviderChargeRequest } from "@payaccept/contracts";
import { cardExpiredAt, findMethod, markMethod } from "./methods.ts";
import { applyOutcome, type Outcome } from "./outcomes.ts";
import { findCharge, insertOrFind, sameTerms } from "./sessions.ts";
import { inTransaction, type AcquirerDb, type AcquirerTx } from "./store/db.ts";
import type { MethodRow, SessionRow } from "./store/schema.ts";
import { SBP_INSUFFICIENT_FUNDS_KOPECKS } from "./test-cards.ts";

/**
 * What the bank says to a charge with this method: a revoked or expired method is declined, then
 * the test card's rule decides (docs/acquirer-emulator.md, "Test cards"). A card whose issuer
 * reports it expired or revoked is marked so, and later charges are declined without asking.
 */
function decide(tx: AcquirerTx, method: MethodRow, amountKopecks: number, now: number): Outcome {
  const declined = (reason: "insufficient_funds" | "card_expired" | "method_revoked"): Outcome => ({ event: "DECLINED", reason });
  if (method.status === "REVOKED") return declined("method_revoked");
  if (method.status === "EXPIRED" || cardExpiredAt(method, now)) return declined("card_expired");
  switch (method.profile) {
    case "insufficient_funds":
      return declined("insufficient_funds");
    case "expired":
      markMethod(tx, method.id, "EXPIRED", now);
      return declined("card_expired");
    case "revoked":
      markMethod(tx, method.id, "REVOKED", now);
      return declined("method_revoked");
    case "authenticate":
      return { event: "CHALLENGE" };
    case "approve":
    case "drop":
      if (method.method === "SBP" && amountKopecks % 100 === SBP_INSUFFICIENT_FUNDS_KOPECKS) return declined("insufficient_funds");
      return { event: "APPROVED" };
  }
}

/**
 * A merchant-initiated charge with a saved method, no buyer present. Idempotent by chargeId: the
 * session, the bank's decision and its callback commit in one transaction, and a repeat returns
 * that session as it is now, so a retry after a lost answer never charges twice. A repeat that
 * names another method, amount or mode is refused. `dropAnswer`: the test card whose answer the
 * acquirer loses once the charge is committed (docs/acquirer-emulator.md).
 */
export function charge(
  db: AcquirerDb,
  req: ProviderChargeRequest,
  now: number,
  holdTtlMs: number,
): { session: SessionRow; created: boolean; callbackId: string | null; dropAnswer: boolean } {
  const hold = req.hold ?? false;
  return inTransaction(
    db,
    (tx) => {
      const existing = findCharge(tx, req.chargeId);
      if (existing) return { session: sameCharge(existing, req, hold), created: false, callbackId: null, dropAnswer: false };
      const method = findMethod(tx, req.methodId);
      if (!method) throw new DomainError("METHOD_NOT_FOUND");
      if (hold && method.method === "SBP") throw new DomainError("HOLD_NOT_FOR_SBP");
      const { session, created } = insertOrFind(
        tx,
        {
          merchantPaymentId: req.chargeId,
          kind: "CHARGE",
          method: method.method,
          amountKopecks: req.amountKopecks,
          description: req.description,
          returnUrl: req.returnUrl,
          callbackUrl: req.callbackUrl,
          expiresAt: req.expiresAt ? Date.parse(req.expiresAt) : null,
          hold,
          methodId: method.id,
          merchantName: method.merchantName,
        },
        now,
      );
      // The id names a buyer's session of this payment already: not a charge, and not to be answered as one.
      if (!created) sameTerms(session, { kind: "CHARGE", hold });
      const applied = applyOutcome(tx, session, decide(tx, method, req.amountKopecks, now), now, holdTtlMs);
      return { ...applied, created: true, dropAnswer: method.profile === "drop" };
    },
  );
}

function sameCharge(existing: SessionRow, req: ProviderChargeRequest, hold: boolean): SessionRow {
  sameTerms(existing, { kind: "CHARGE", hold });
  if (existing.methodId !== req.methodId) throw new DomainError("SESSION_TERMS_MISMATCH", { field: "methodId" });
  if (existing.amountKopecks !== req.amountKopecks) throw new DomainError("SESSION_TERMS_MISMATCH", { field: "amountKopecks" });
  return existing;
}
