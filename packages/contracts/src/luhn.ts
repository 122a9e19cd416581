/**
 * Card-number checks shared by the payment page's browser script and the acquirer's server-side
 * validation. Kept free of imports so the browser bundle stays tiny.
 */

/** Digits only: buyers type spaces and dashes between groups. */
export const normalizeCardNumber = (input: string): string => input.replace(/[\s-]/g, "");

/** True for 12..19 digits passing the Luhn (mod 10) checksum. */
export function isValidCardNumber(input: string): boolean {
  const digits = normalizeCardNumber(input);
  if (!/^\d{12,19}$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** "MM/YY" (spaces tolerated) → month and full year, or null. */
export function parseCardExpiry(input: string): { month: number; year: number } | null {
  const m = /^\s*(0[1-9]|1[0-2])\s*\/\s*(\d{2})\s*$/.exec(input);
  if (!m) return null;
  return { month: Number(m[1]), year: 2000 + Number(m[2]) };
}

/** A card is valid through the last day of its expiry month (UTC; a day's slack is the issuer's business). */
export function isCardExpired(expiry: { month: number; year: number }, now: Date): boolean {
  const firstOfNextMonth = Date.UTC(expiry.year, expiry.month, 1);
  return now.getTime() >= firstOfNextMonth;
}
