import { and, eq, sql } from "drizzle-orm";
import { DomainError, type ProviderCallback, type ProviderSession, type ProviderSessionRequest } from "@payaccept/contracts";
import type { AcquirerDb } from "./store/db.ts";
import { callbacks, refunds, sessions, type RefundRow, type SessionRow } from "./store/schema.ts";

/** The buyer-facing addresses of a session. A QR payload doubles as the phone deep link (a universal link). */
export function sessionLinks(row: SessionRow, publicUrl: string): ProviderSession {
  if (row.method === "SBP") {
    const url = `${publicUrl}/sbp/${row.id}`;
    return { sessionId: row.id, method: "SBP", qrPayload: url, deepLink: url };
  }
  return { sessionId: row.id, method: "CARD", formAction: `${publicUrl}/card/${row.id}` };
}

/**
 * Registers a payment attempt, idempotently by (merchantPaymentId, method). A repeat with another
 * amount is a caller bug, refused rather than silently answered with the first session. A repeat
 * for a session canceled by a method switch reopens it: the buyer switched back.
 */
export function openSession(db: AcquirerDb, req: ProviderSessionRequest, now: number): { session: SessionRow; created: boolean } {
  const expiresAt = req.expiresAt ? Date.parse(req.expiresAt) : null;
  const inserted = db
    .insert(sessions)
    .values({
      id: Bun.randomUUIDv7(),
      merchantPaymentId: req.merchantPaymentId,
      method: req.method,
      amountKopecks: req.amountKopecks,
      description: req.description,
      returnUrl: req.returnUrl,
      callbackUrl: req.callbackUrl,
      status: "OPEN",
      expiresAt,
      createdAt: now,
    })
    .onConflictDoNothing()
    .returning()
    .get();
  if (inserted) return { session: inserted, created: true };
  const existing = db
    .select()
    .from(sessions)
    .where(and(eq(sessions.merchantPaymentId, req.merchantPaymentId), eq(sessions.method, req.method)))
    .get()!;
  if (existing.amountKopecks !== req.amountKopecks) {
    throw new DomainError("SESSION_AMOUNT_MISMATCH");
  }
  if (existing.status !== "CANCELED") return { session: existing, created: false };
  const reopened = db
    .update(sessions)
    .set({ status: "OPEN", declineReason: null, expiresAt })
    .where(and(eq(sessions.id, existing.id), eq(sessions.status, "CANCELED")))
    .returning()
    .get();
  return { session: reopened ?? findSession(db, existing.id)!, created: false };
}

/**
 * Makes a session unpayable: the buyer switched to another method. Paid sessions cannot be canceled
 * (CONFLICT): the payer's side then waits for that payment's callback instead of switching.
 */
export function cancelSession(db: AcquirerDb, id: string): SessionRow {
  return db.transaction((tx) => {
    const row = tx.select().from(sessions).where(eq(sessions.id, id)).get();
    if (!row) throw new DomainError("SESSION_NOT_FOUND");
    if (row.status === "PAID") throw new DomainError("SESSION_ALREADY_PAID");
    return tx.update(sessions).set({ status: "CANCELED" }).where(eq(sessions.id, id)).returning().get()!;
  });
}

/** A card form is refused after the buyer's deadline: the spec's late payment is the SBP QR's only. */
export const cardTimeIsUp = (row: SessionRow, now: number): boolean => row.method === "CARD" && row.expiresAt !== null && now >= row.expiresAt;

export function findSession(db: AcquirerDb, id: string): SessionRow | undefined {
  return db.select().from(sessions).where(eq(sessions.id, id)).get();
}

export type Outcome = { event: "PAID" } | { event: "DECLINED"; reason: string } | { event: "CHALLENGE" };

/**
 * Whether an outcome may follow the session's status. An SBP session may still be paid after a
 * decline: the buyer can scan the same QR again (a late payment on our side). A canceled session
 * takes nothing, and a card session nothing after its deadline.
 */
function allowed(row: SessionRow, outcome: Outcome, now: number): boolean {
  if (cardTimeIsUp(row, now)) return false;
  const open = row.status === "OPEN" || row.status === "CHALLENGE";
  switch (outcome.event) {
    case "PAID":
      return open || (row.method === "SBP" && row.status === "DECLINED");
    case "DECLINED":
      return open;
    case "CHALLENGE":
      return row.method === "CARD" && row.status === "OPEN";
  }
}

/**
 * Records an outcome and, for PAID and DECLINED, its callback in the same transaction, so a crash
 * can neither lose the callback nor send one for an outcome that was not stored. Returns the
 * callback id, or null when the outcome does not apply (already final: nothing changes).
 */
export function recordOutcome(db: AcquirerDb, sessionId: string, outcome: Outcome, now: number): { session: SessionRow; callbackId: string | null } {
  return db.transaction((tx) => {
    const row = tx.select().from(sessions).where(eq(sessions.id, sessionId)).get();
    if (!row) throw new DomainError("SESSION_NOT_FOUND");
    if (!allowed(row, outcome, now)) return { session: row, callbackId: null };
    const patch =
      outcome.event === "PAID"
        ? { status: "PAID" as const, paidAt: now, declineReason: null }
        : outcome.event === "DECLINED"
          ? { status: "DECLINED" as const, declineReason: outcome.reason }
          : { status: "CHALLENGE" as const };
    const session = tx.update(sessions).set(patch).where(eq(sessions.id, sessionId)).returning().get()!;
    if (outcome.event === "CHALLENGE") return { session, callbackId: null };
    const callbackId = Bun.randomUUIDv7();
    const body: ProviderCallback = {
      callbackId,
      sessionId,
      merchantPaymentId: session.merchantPaymentId,
      event: outcome.event,
      paidAt: outcome.event === "PAID" ? new Date(now).toISOString() : null,
      reason: outcome.event === "DECLINED" ? outcome.reason : null,
    };
    tx.insert(callbacks)
      .values({
        id: callbackId,
        sessionId,
        url: session.callbackUrl,
        body: JSON.stringify(body),
        state: "pending",
        nextAttemptAt: now,
        createdAt: now,
      })
      .run();
    return { session, callbackId };
  });
}

/** Test rule: a refund whose amount ends in 13 kopecks (e.g. 50.13 RUB) is declined, as a bank may decline one. */
export const DECLINED_REFUND_KOPECKS = 13;
export const REFUND_DECLINE_REASON = "refund_declined";

/**
 * A full or partial refund of a paid session, idempotent by (session, merchantRefundId): a repeat
 * returns the first answer. The refunds that succeeded add up to at most the paid amount.
 */
export function refundSession(
  db: AcquirerDb,
  req: { sessionId: string; merchantRefundId: string; amountKopecks: number },
  now: number,
): { refund: RefundRow; created: boolean } {
  return db.transaction(
    (tx) => {
      const mine = and(eq(refunds.sessionId, req.sessionId), eq(refunds.merchantRefundId, req.merchantRefundId));
      const existing = tx.select().from(refunds).where(mine).get();
      if (existing) return { refund: existing, created: false };
      const session = tx.select().from(sessions).where(eq(sessions.id, req.sessionId)).get();
      if (!session) throw new DomainError("SESSION_NOT_FOUND");
      if (session.status !== "PAID") throw new DomainError("SESSION_NOT_PAID");
      const refunded = tx
        .select({ total: sql<number>`coalesce(sum(${refunds.amountKopecks}), 0)` })
        .from(refunds)
        .where(and(eq(refunds.sessionId, req.sessionId), eq(refunds.status, "SUCCEEDED")))
        .get()!.total;
      if (req.amountKopecks > session.amountKopecks - refunded) {
        throw new DomainError("SESSION_REFUND_EXCEEDS", { leftKopecks: session.amountKopecks - refunded });
      }
      const declined = req.amountKopecks % 100 === DECLINED_REFUND_KOPECKS;
      const refund = tx
        .insert(refunds)
        .values({
          id: Bun.randomUUIDv7(),
          sessionId: req.sessionId,
          merchantRefundId: req.merchantRefundId,
          amountKopecks: req.amountKopecks,
          status: declined ? "FAILED" : "SUCCEEDED",
          reason: declined ? REFUND_DECLINE_REASON : null,
          createdAt: now,
        })
        .returning()
        .get();
      return { refund, created: true };
    },
    { behavior: "immediate" },
  );
}
