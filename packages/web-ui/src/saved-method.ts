import type { CardBrand, PaymentMethodDetails } from "@payaccept/contracts";
import type { Lang } from "./lang.ts";

/**
 * How the pages (payment page, dashboard) name a saved method so that its owner recognises it:
 * the card's network, last 4 digits and expiry, or the SBP bank. Never more: the pages never have
 * a card number to show.
 */
const BRANDS: Record<Lang, Record<CardBrand, string>> = {
  ru: { VISA: "Visa", MASTERCARD: "Mastercard", MIR: "Мир", UNIONPAY: "UnionPay", OTHER: "Карта" },
  en: { VISA: "Visa", MASTERCARD: "Mastercard", MIR: "Mir", UNIONPAY: "UnionPay", OTHER: "Card" },
};

const SBP: Record<Lang, string> = { ru: "СБП", en: "SBP" };

/** `Visa •• 4242, 12/30` or `СБП, Тестовый банк`. */
export function savedMethodLabel(m: Pick<PaymentMethodDetails, "card" | "sbp">, lang: Lang): string {
  if (m.card) return `${BRANDS[lang][m.card.brand]} •• ${m.card.last4}, ${String(m.card.expMonth).padStart(2, "0")}/${String(m.card.expYear % 100).padStart(2, "0")}`;
  return m.sbp ? `${SBP[lang]}, ${m.sbp.bankName}` : SBP[lang];
}
