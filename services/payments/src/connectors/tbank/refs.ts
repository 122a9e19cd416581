import type { PaymentMethod, ProviderCardDescription } from "@payaccept/contracts";
import { cardBrandOf } from "@payaccept/domain";

/**
 * The connector's own ids, opaque to payments, carrying what the bank's calls need later (the bank
 * keeps no session of ours): a session is the bank's PaymentId, with ".sbp" for a QR payment and
 * the RequestKey of its account binding when the payer was asked to bind; a saved card is its
 * CustomerKey, CardId and RebillId; a saved SBP account its RequestKey and AccountToken.
 */
export type SessionRef = { paymentId: string; method: PaymentMethod; requestKey: string | null };

export function sessionIdOf(ref: SessionRef): string {
  if (ref.method === "CARD") return ref.paymentId;
  return ref.requestKey === null ? `${ref.paymentId}.sbp` : `${ref.paymentId}.sbp.${ref.requestKey}`;
}

export function sessionRefOf(sessionId: string): SessionRef {
  const [paymentId, sbp, requestKey] = sessionId.split(".");
  return { paymentId: paymentId!, method: sbp === "sbp" ? "SBP" : "CARD", requestKey: requestKey ?? null };
}

export type MethodRef = { method: "CARD"; customerKey: string; cardId: string; rebillId: string } | { method: "SBP"; requestKey: string; accountToken: string };

export const methodIdOf = (m: MethodRef): string =>
  m.method === "CARD" ? ["card", m.customerKey, m.cardId, m.rebillId].join(":") : ["sbp", m.requestKey, m.accountToken].join(":");

/** null when the id is not one this connector made (another connector's, or malformed). */
export function methodRefOf(methodId: string): MethodRef | null {
  const [kind, a, b, c] = methodId.split(":");
  if (kind === "card" && a && b && c) return { method: "CARD", customerKey: a, cardId: b, rebillId: c };
  if (kind === "sbp" && a && b) return { method: "SBP", requestKey: a, accountToken: b };
  return null;
}

/** A card as the bank shows it (a masked PAN, ExpDate MMYY): brand by its first digits, the last four, the expiry. */
export function cardOf(pan: string | undefined, expDate: string | undefined): ProviderCardDescription | null {
  const digits = pan?.replace(/[^0-9*]/g, "") ?? "";
  const last4 = digits.slice(-4);
  if (!/^\d{4}$/.test(last4) || !expDate || !/^\d{4}$/.test(expDate)) return null;
  const expMonth = Number(expDate.slice(0, 2));
  if (expMonth < 1 || expMonth > 12) return null;
  // A masked PAN keeps its first six digits (the BIN), which is all the brand needs.
  return { brand: cardBrandOf(digits), last4, expMonth, expYear: 2000 + Number(expDate.slice(2)) };
}
