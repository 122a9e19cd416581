import { MOSCOW_OFFSET_MS as OFFSET_MS, moscowDay, type Lang } from "@payaccept/platform";
const DAY_MS = 86_400_000;
const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** "2026-11-22T11:05:09Z" → "22.11.2026 14:05" (ru) or "2026-11-22 14:05" (en), Moscow time. */
export function formatMoscow(instant: string | number, lang: Lang): string {
  const shifted = new Date(new Date(instant).getTime() + OFFSET_MS).toISOString();
  const [date, time] = [shifted.slice(0, 10), shifted.slice(11, 16)];
  if (lang === "en") return `${date} ${time}`;
  const [y, m, d] = date.split("-");
  return `${d}.${m}.${y} ${time}`;
}

/** The Moscow calendar date of an instant, as YYYY-MM-DD (what <input type="date"> holds). */
export const moscowDate = moscowDay;

/** A YYYY-MM-DD as it reads in the interface. */
export function formatDay(day: string, lang: Lang): string {
  const [, y, m, d] = DAY.exec(day) ?? [];
  return lang === "en" || !y ? day : `${d}.${m}.${y}`;
}

/** The Moscow day after the given one. */
export const nextDay = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) + DAY_MS).toISOString().slice(0, 10);

/**
 * The UTC instants bounding a Moscow calendar day: its first millisecond and its last. Undefined
 * for anything that is not a real YYYY-MM-DD date.
 */
export function moscowDayBounds(day: string): { first: string; last: string } | undefined {
  if (!DAY.test(day)) return undefined;
  const midnightUtc = Date.parse(`${day}T00:00:00Z`);
  if (Number.isNaN(midnightUtc) || new Date(midnightUtc).toISOString().slice(0, 10) !== day) return undefined;
  const first = midnightUtc - OFFSET_MS;
  return { first: new Date(first).toISOString(), last: new Date(first + DAY_MS - 1).toISOString() };
}
