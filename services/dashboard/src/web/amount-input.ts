import type { Lang } from "@payaccept/web-ui";

/** Up to 11 digits of rubles (the API's largest amount is 100 000 000 ₽) and at most two of kopecks. */
const DECIMAL = /^(\d{1,11})(?:[.,](\d{1,2}))?$/;

const digitsOf = (input: string) => input.replace(/[\s\u00A0\u202F]/g, "");

/** "1 234,56", "1234.5", "1500" → kopecks (integers only, no float rounding); undefined otherwise. */
export function parseRubles(input: string): number | undefined {
  const m = DECIMAL.exec(digitsOf(input));
  return m ? Number(m[1]) * 100 + Number((m[2] ?? "").padEnd(2, "0")) : undefined;
}

/** "2,5" → 250 basis points; 0..100 % in hundredths. */
export function parsePercentBp(input: string): number | undefined {
  const bp = parseRubles(input);
  return bp !== undefined && bp <= 10_000 ? bp : undefined;
}

/** The value an input shows for a number of hundredths: 123456 → "1234,56" (ru) or "1234.56" (en). */
export function hundredthsInput(value: number, lang: Lang): string {
  const text = `${Math.floor(value / 100)}.${String(value % 100).padStart(2, "0")}`;
  return lang === "ru" ? text.replace(".", ",") : text;
}
