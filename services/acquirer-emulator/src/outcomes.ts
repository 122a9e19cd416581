import { DomainError, type ProviderReason } from "@payaccept/contracts";
import { writeCallback } from "./callbacks/write.ts";
import { createMethod, methodView } from "./methods.ts";
import { cardTimeIsUp } from "./sessions.ts";
import { inTransaction, type AcquirerDb, type AcquirerTx } from "./store/db.ts";
import type { CardOnFile, SessionRow } from "./store/schema.ts";
import { statements } from "./store/statements.ts";

/**
 * What the buyer, the payer or the bank decided. APPROVED takes the money (PAID) or, for a hold,
 * holds it (AUTHORIZED); it carries what to save when the buyer agreed to: the card (never its
 * number) or, for SBP, the payer who consented to the binding in the bank app. BOUND: the payer
 * consented to a binding without payment. CHALLENGE: a 3-D Secure code is needed first.
 */
export type Outcome =
  | { event: "APPROVED"; card?: CardOnFile; bindPayer?: string }
  | { event: "DECLINED"; reason: ProviderReason }
  | { event: "CHALLENGE"; card?: CardOnFile }
  | { event: "BOUND"; payerId: string };

/**
 * Whether an outcome may follow the session's status. An SBP session may still be paid (or bound)
 * after a decline: the payer can scan the same QR again (a late payment on our side). A canceled
 * session takes nothing, and a card session nothing after its deadline.
 */
function allowed(row: SessionRow, outcome: Outcome, now: number): boolean {
  if (cardTimeIsUp(row, now)) return false;
  const open = row.status === "OPEN" || row.status === "CHALLENGE";
  const lateSbp = row.method === "SBP" && row.status === "DECLINED";
  switch (outcome.event) {
    case "APPROVED":
      return row.kind !== "BINDING" && (open || lateSbp);
    case "BOUND":
      return row.kind === "BINDING" && (open || lateSbp);
    case "DECLINED":
      return open;
    case "CHALLENGE":
      return row.method === "CARD" && row.status === "OPEN";
  }
}

/**
 * Applies an outcome inside the caller's transaction and, unless it is a CHALLENGE, writes its
 * callback there too. Returns the callback id, or null when the outcome does not apply (already
 * final: nothing changes) or writes none.
 */
export function applyOutcome(tx: AcquirerTx, row: SessionRow, outcome: Outcome, now: number, holdTtlMs: number): { session: SessionRow; callbackId: string | null } {
  if (!allowed(row, outcome, now)) return { session: row, callbackId: null };
  const update = (patch: Partial<SessionRow>) => statements(tx).updateSession(row.id, patch);
  switch (outcome.event) {
    case "CHALLENGE":
      return { session: update({ status: "CHALLENGE", pendingCard: row.saveMethod ? (outcome.card ?? null) : null }), callbackId: null };
    case "DECLINED": {
      const session = update({ status: "DECLINED", declineReason: outcome.reason, pendingCard: null });
      return { session, callbackId: writeCallback(tx, session, { event: "DECLINED", reason: outcome.reason }, now) };
    }
    case "BOUND": {
      const method = createMethod(tx, row, { payerId: outcome.payerId }, now);
      const session = update({ status: "BOUND", declineReason: null, methodId: method.id });
      return { session, callbackId: writeCallback(tx, session, { event: "BOUND", savedMethod: methodView(method, now) }, now) };
    }
    case "APPROVED": {
      const saved = savedBy(tx, row, outcome, now);
      const methodId = saved?.id ?? row.methodId;
      const common = { declineReason: null, pendingCard: null, methodId };
      const session = row.hold
        ? update({ ...common, status: "AUTHORIZED", holdExpiresAt: now + holdTtlMs })
        : update({ ...common, status: "PAID", paidAt: now, capturedKopecks: row.amountKopecks });
      const savedMethod = saved ? methodView(saved, now) : null;
      const fields = row.hold
        ? { event: "AUTHORIZED", amountKopecks: row.amountKopecks, holdExpiresAt: new Date(session.holdExpiresAt!).toISOString(), savedMethod }
        : { event: "PAID", amountKopecks: row.amountKopecks, paidAt: new Date(now).toISOString(), savedMethod };
      return { session, callbackId: writeCallback(tx, session, fields, now) };
    }
  }
}

/** The method an approved PAYMENT saves: the card the buyer agreed to save, or the SBP account the payer bound. */
function savedBy(tx: AcquirerTx, row: SessionRow, outcome: Extract<Outcome, { event: "APPROVED" }>, now: number) {
  if (row.kind !== "PAYMENT" || !row.saveMethod) return undefined;
  if (row.method === "CARD") {
    const card = outcome.card ?? row.pendingCard;
    return card ? createMethod(tx, row, { card }, now) : undefined;
  }
  return outcome.bindPayer ? createMethod(tx, row, { payerId: outcome.bindPayer }, now) : undefined;
}

/** Records an outcome and its callback in one transaction (see applyOutcome). */
export function recordOutcome(db: AcquirerDb, sessionId: string, outcome: Outcome, now: number, holdTtlMs: number): { session: SessionRow; callbackId: string | null } {
  return inTransaction(
    db,
    (tx) => {
      const row = statements(tx).sessionById(sessionId);
      if (!row) throw new DomainError("SESSION_NOT_FOUND");
      return applyOutcome(tx, row, outcome, now, holdTtlMs);
    },
  );
}
