import type { PaymentMethod, PaymentMethodDetails, ProviderCardDescription, ProviderSavedMethod } from "@payaccept/contracts";
import type { NewSavedMethodRow, PaymentRow, SavedMethodRow } from "../store/payments-store.ts";

/**
 * A card is valid through the last day of its expiry month (UTC), as the acquirer checks it: it
 * expires at the first instant of the next month.
 */
export const cardExpiresAt = (card: Pick<ProviderCardDescription, "expMonth" | "expYear">): number => Date.UTC(card.expYear, card.expMonth, 1);

/** What a sandbox payment saves when its buyer (or the test helper) agrees: a recognisable test card or bank. */
export function sandboxMethodOf(method: PaymentMethod, now: number): Pick<ProviderSavedMethod, "method" | "card" | "sbp"> {
  if (method === "SBP") return { method, card: null, sbp: { bankName: "Тестовый банк" } };
  return { method, card: { brand: "VISA", last4: "4242", expMonth: 12, expYear: new Date(now).getUTCFullYear() + 3 }, sbp: null };
}

/**
 * The row of a method the payment saves: the acquirer's token (`providerMethodId`, null in the
 * sandbox) and its description, filed under the payment's shop and customer.
 */
export function newSavedMethod(payment: PaymentRow, saved: Pick<ProviderSavedMethod, "method" | "card" | "sbp">, providerMethodId: string | null, now: number): NewSavedMethodRow {
  return {
    id: Bun.randomUUIDv7(),
    shopId: payment.shopId,
    accountId: payment.accountId,
    customerId: payment.customerId,
    paymentId: payment.id,
    providerMethodId,
    connector: payment.connector,
    method: saved.method,
    status: "ACTIVE",
    card: saved.card,
    sbp: saved.sbp,
    isTest: payment.isTest,
    expiresAt: saved.card ? cardExpiresAt(saved.card) : null,
    createdAt: now,
  };
}

/** What a payment shows of the method it saved or charged. */
export const detailsOf = (m: Pick<SavedMethodRow, "id" | "method" | "card" | "sbp">): PaymentMethodDetails => ({ id: m.id, method: m.method, card: m.card, sbp: m.sbp });

/** The payment's fields once it saved the method: which one, and what it shows. */
export const savedOnPayment = (m: NewSavedMethodRow) => ({ savedMethodId: m.id, paymentMethod: detailsOf({ id: m.id, method: m.method, card: m.card ?? null, sbp: m.sbp ?? null }) });
