import type { Lang } from "./lang.ts";

/** U+202F, the narrow no-break space Russian typography uses between digit groups. */
const GROUP_RU = "\u202F";
/** U+00A0 keeps the amount and the ruble sign on one line. */
const NBSP = "\u00A0";

const group = (digits: string, sep: string) => digits.replace(/\B(?=(\d{3})+(?!\d))/g, sep);

/**
 * Kopecks → rubles for people: `1 234,56 ₽` in Russian, `₽1,234.56` in English. Integer
 * arithmetic only: a float would misprint some amounts.
 */
export function formatRubles(kopecks: number, lang: Lang): string {
  const sign = kopecks < 0 ? "-" : "";
  const abs = Math.abs(kopecks);
  const rubles = String(Math.floor(abs / 100));
  const cents = String(abs % 100).padStart(2, "0");
  return lang === "ru" ? `${sign}${group(rubles, GROUP_RU)},${cents}${NBSP}₽` : `${sign}₽${group(rubles, ",")}.${cents}`;
}
