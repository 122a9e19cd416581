import type { CardBrand } from "@payaccept/contracts";

/**
 * The card's payment system by its first digits (IIN ranges). Mir's 2200–2204 is checked before
 * Mastercard's 2-series (2221–2720), which it does not overlap but sits next to.
 */
export function cardBrandOf(pan: string): CardBrand {
  if (/^220[0-4]/.test(pan)) return "MIR";
  if (/^4/.test(pan)) return "VISA";
  if (/^5[1-5]/.test(pan)) return "MASTERCARD";
  const six = Number(pan.slice(0, 6));
  if (six >= 222100 && six <= 272099) return "MASTERCARD";
  if (/^62/.test(pan)) return "UNIONPAY";
  return "OTHER";
}
