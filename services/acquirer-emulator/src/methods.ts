import { and, desc, eq } from "drizzle-orm";
import { DomainError, isCardExpired, type ProviderSavedMethod } from "@payaccept/contracts";
import { inTransaction, type AcquirerDb, type AcquirerTx } from "./store/db.ts";
import { writeCallback } from "./callbacks/write.ts";
import { methods, type CardOnFile, type MethodRow, type SessionRow } from "./store/schema.ts";
import { statements } from "./store/statements.ts";

/** The bank behind every SBP binding the emulator makes: its own bank app. */
export const SBP_BANK_NAME = "Тестовый банк";

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** A card's own expiry passed: it is refused as expired whatever its stored status says. */
export const cardExpiredAt = (row: MethodRow, now: number): boolean =>
  row.cardExpMonth !== null && row.cardExpYear !== null && isCardExpired({ month: row.cardExpMonth, year: row.cardExpYear }, new Date(now));

/** The method as the protocol shows it: REVOKED wins, then EXPIRED (reported by the issuer or by the calendar). */
export function methodView(row: MethodRow, now: number): ProviderSavedMethod {
  const status = row.status === "REVOKED" ? "REVOKED" : row.status === "EXPIRED" || cardExpiredAt(row, now) ? "EXPIRED" : "ACTIVE";
  return {
    methodId: row.id,
    method: row.method,
    status,
    // A CARD row always has its description (createMethod writes it with the row).
    card: row.method === "CARD" ? { brand: row.cardBrand!, last4: row.cardLast4!, expMonth: row.cardExpMonth!, expYear: row.cardExpYear! } : null,
    sbp: row.method === "SBP" ? { bankName: SBP_BANK_NAME } : null,
    createdAt: new Date(row.createdAt).toISOString(),
    revokedAt: iso(row.revokedAt),
    revokedBy: row.revokedBy,
  };
}

/** Saves the method a session's buyer agreed to save: a card token, or the payer's SBP account binding. */
export function createMethod(tx: AcquirerTx, session: SessionRow, what: { card: CardOnFile } | { payerId: string }, now: number): MethodRow {
  const common = { id: Bun.randomUUIDv7(), status: "ACTIVE" as const, merchantName: session.merchantName, sessionId: session.id, createdAt: now };
  const values =
    "card" in what
      ? {
          ...common,
          method: "CARD" as const,
          cardBrand: what.card.brand,
          cardLast4: what.card.last4,
          cardExpMonth: what.card.expMonth,
          cardExpYear: what.card.expYear,
          profile: what.card.profile,
        }
      : { ...common, method: "SBP" as const, payerId: what.payerId, profile: "approve" as const };
  return tx.insert(methods).values(values).returning().get();
}

export function findMethod(db: AcquirerDb, id: string): MethodRow | undefined {
  return statements(db).methodById(id);
}

/** Marks a method as its issuer reports it at a charge (expired, or revoked by the cardholder at their bank). */
export function markMethod(tx: AcquirerTx, id: string, status: "EXPIRED" | "REVOKED", now: number): void {
  tx.update(methods)
    .set(status === "REVOKED" ? { status, revokedBy: "ISSUER", revokedAt: now } : { status })
    .where(and(eq(methods.id, id), eq(methods.status, "ACTIVE")))
    .run();
}

/**
 * The merchant revokes a saved method: every later charge with it is declined (method_revoked).
 * Idempotent: a method already revoked (by anyone) stays as it is. No callback: the caller knows.
 */
export function revokeByMerchant(db: AcquirerDb, id: string, now: number): MethodRow {
  return inTransaction(
    db,
    (tx) => {
      const row = findMethod(tx, id);
      if (!row) throw new DomainError("METHOD_NOT_FOUND");
      if (row.status === "REVOKED") return row;
      return tx.update(methods).set({ status: "REVOKED", revokedBy: "MERCHANT", revokedAt: now }).where(eq(methods.id, id)).returning().get()!;
    },
  );
}

/**
 * The payer withdraws an SBP binding in the bank app. Only the payer who gave it may; an ACTIVE one
 * becomes REVOKED and payments hears it by a METHOD_REVOKED callback written in the same
 * transaction. Null when it is not this payer's binding; no callback when it was already revoked.
 */
export function revokeByPayer(db: AcquirerDb, id: string, payerId: string, now: number): { method: MethodRow; callbackId: string | null } | null {
  return inTransaction(
    db,
    (tx) => {
      const row = findMethod(tx, id);
      if (!row || row.method !== "SBP" || row.payerId !== payerId) return null;
      if (row.status === "REVOKED") return { method: row, callbackId: null };
      const method = tx.update(methods).set({ status: "REVOKED", revokedBy: "PAYER", revokedAt: now }).where(eq(methods.id, id)).returning().get()!;
      const session = statements(tx).sessionById(row.sessionId)!;
      const callbackId = writeCallback(tx, session, { event: "METHOD_REVOKED", reason: "method_revoked", savedMethod: methodView(method, now) }, now);
      return { method, callbackId };
    },
  );
}

/** The SBP bindings a payer gave, newest first: what the bank app lists. */
export function bindingsOf(db: AcquirerDb, payerId: string): MethodRow[] {
  return db
    .select()
    .from(methods)
    .where(and(eq(methods.payerId, payerId), eq(methods.method, "SBP")))
    .orderBy(desc(methods.createdAt))
    .all();
}
