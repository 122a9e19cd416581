import {
  DomainError,
  type ProviderBindingRequest,
  type ProviderSession,
  type ProviderSessionRequest,
  type ProviderSessionState,
} from "@payaccept/contracts";
import { findMethod, methodView } from "./methods.ts";
import { inTransaction, type AcquirerDb, type AcquirerTx } from "./store/db.ts";
import type { SessionRow } from "./store/schema.ts";
import { statements, type SessionInsert } from "./store/statements.ts";

/** The buyer-facing addresses of a session. A QR payload doubles as the phone deep link (a universal link). */
export function sessionLinks(row: SessionRow, publicUrl: string): ProviderSession {
  if (row.method === "SBP") {
    const url = `${publicUrl}/sbp/${row.id}`;
    return { sessionId: row.id, method: "SBP", qrPayload: url, deepLink: url };
  }
  return { sessionId: row.id, method: "CARD", formAction: `${publicUrl}/card/${row.id}` };
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** Where a buyer completes a 3-D Secure step (for a charge: the authentication the bank asks for). */
export const authenticationUrl = (row: SessionRow, publicUrl: string) => `${publicUrl}/card/${row.id}/3ds`;

/** The session as the protocol shows it (docs/acquirer-protocol.md, "Session state"). */
export function sessionState(db: AcquirerDb, row: SessionRow, publicUrl: string, now: number): ProviderSessionState {
  const method = row.methodId ? findMethod(db, row.methodId) : undefined;
  return {
    sessionId: row.id,
    merchantPaymentId: row.merchantPaymentId,
    kind: row.kind,
    method: row.method,
    status: row.status,
    amountKopecks: row.amountKopecks,
    capturedKopecks: row.capturedKopecks,
    hold: row.hold,
    holdExpiresAt: row.status === "AUTHORIZED" ? iso(row.holdExpiresAt) : null,
    paidAt: iso(row.paidAt),
    reason: row.declineReason,
    authenticationUrl: row.status === "CHALLENGE" ? authenticationUrl(row, publicUrl) : null,
    savedMethod: method ? methodView(method, now) : null,
  };
}

type NewSession = Omit<SessionInsert, "id" | "status" | "createdAt">;

/**
 * Inserts a session unless one exists for (merchantPaymentId, method); then returns that one,
 * which the caller compares with what it asked for.
 */
export function insertOrFind(tx: AcquirerTx, values: NewSession, now: number): { session: SessionRow; created: boolean } {
  const store = statements(tx);
  const inserted = store.insertSession({ ...values, id: Bun.randomUUIDv7(), status: "OPEN", createdAt: now });
  if (inserted) return { session: inserted, created: true };
  return { session: store.sessionByPaymentMethod(values.merchantPaymentId, values.method)!, created: false };
}

/** A repeat must ask for the same thing: another kind or hold is a caller bug, refused rather than answered with the first session. */
export function sameTerms(existing: SessionRow, asked: Pick<SessionRow, "kind" | "hold">): void {
  if (existing.kind !== asked.kind) throw new DomainError("SESSION_TERMS_MISMATCH", { field: "kind" });
  if (existing.hold !== asked.hold) throw new DomainError("SESSION_TERMS_MISMATCH", { field: "hold" });
}

const deadlineOf = (expiresAt: string | undefined) => (expiresAt ? Date.parse(expiresAt) : null);

/**
 * Registers a payment attempt, idempotently by (merchantPaymentId, method). A repeat with another
 * amount is a caller bug, refused rather than silently answered with the first session. A repeat
 * while the buyer has not paid sets the save flag anew (the buyer changed their mind on our page);
 * for a session canceled by a method switch it reopens it: the buyer switched back.
 */
export function openSession(db: AcquirerDb, req: ProviderSessionRequest, now: number): { session: SessionRow; created: boolean } {
  const hold = req.hold ?? false;
  if (hold && req.method === "SBP") throw new DomainError("HOLD_NOT_FOR_SBP");
  const expiresAt = deadlineOf(req.expiresAt);
  const saveMethod = req.saveMethod ?? false;
  return inTransaction(
    db,
    (tx) => {
      const { session: existing, created } = insertOrFind(
        tx,
        {
          merchantPaymentId: req.merchantPaymentId,
          kind: "PAYMENT",
          method: req.method,
          amountKopecks: req.amountKopecks,
          description: req.description,
          returnUrl: req.returnUrl,
          callbackUrl: req.callbackUrl,
          expiresAt,
          saveMethod,
          hold,
          merchantName: req.merchantName ?? null,
        },
        now,
      );
      if (created) return { session: existing, created };
      if (existing.amountKopecks !== req.amountKopecks) throw new DomainError("SESSION_AMOUNT_MISMATCH");
      sameTerms(existing, { kind: "PAYMENT", hold });
      const patch =
        existing.status === "CANCELED"
          ? { status: "OPEN" as const, declineReason: null, expiresAt, saveMethod }
          : existing.status === "OPEN" && existing.saveMethod !== saveMethod
            ? { saveMethod }
            : undefined;
      if (!patch) return { session: existing, created };
      return { session: statements(tx).updateSession(existing.id, patch), created };
    },
  );
}

/**
 * An SBP account binding without a payment (docs/acquirer-protocol.md, "Bindings"): a session of
 * kind BINDING and amount 0 whose QR opens the bank app's consent. Idempotent by bindingId.
 */
export function openBinding(db: AcquirerDb, req: ProviderBindingRequest, now: number): { session: SessionRow; created: boolean } {
  return inTransaction(
    db,
    (tx) => {
      const found = insertOrFind(
        tx,
        {
          merchantPaymentId: req.bindingId,
          kind: "BINDING",
          method: "SBP",
          amountKopecks: 0,
          description: req.description,
          returnUrl: req.returnUrl,
          callbackUrl: req.callbackUrl,
          expiresAt: deadlineOf(req.expiresAt),
          saveMethod: true,
          merchantName: req.merchantName ?? null,
        },
        now,
      );
      if (!found.created) sameTerms(found.session, { kind: "BINDING", hold: false });
      return found;
    },
  );
}

/** Statuses after which a session can no longer be canceled: money was taken or held, or a binding given. */
const SETTLED: SessionRow["status"][] = ["PAID", "AUTHORIZED", "VOIDED", "BOUND"];

/**
 * Makes a session unpayable: the buyer switched to another method. Paid or held sessions cannot be
 * canceled (CONFLICT): the payer's side then waits for that payment's callback instead of switching.
 */
export function cancelSession(db: AcquirerDb, id: string): SessionRow {
  return inTransaction(
    db,
    (tx) => {
      const row = findSession(tx, id);
      if (!row) throw new DomainError("SESSION_NOT_FOUND");
      if (SETTLED.includes(row.status)) throw new DomainError("SESSION_ALREADY_PAID");
      return statements(tx).updateSession(id, { status: "CANCELED" });
    },
  );
}

/** A card form is refused after the buyer's deadline: the spec's late payment is the SBP QR's only. */
export const cardTimeIsUp = (row: SessionRow, now: number): boolean => row.method === "CARD" && row.expiresAt !== null && now >= row.expiresAt;

export function findSession(db: AcquirerDb, id: string): SessionRow | undefined {
  return statements(db).sessionById(id);
}

/** The session of a merchant-initiated charge, by the caller's charge id. */
export function findCharge(db: AcquirerDb, chargeId: string): SessionRow | undefined {
  return statements(db).chargeById(chargeId);
}
