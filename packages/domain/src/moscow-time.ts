/**
 * The one home of the Moscow time rules: pages show Moscow time, the balance holds receipts per
 * Moscow day, the lists filter and the daily figures count by Moscow days. Days are YYYY-MM-DD.
 */

/** Moscow has kept UTC+3 all year since 2014 (no DST), so a fixed offset is exact. */
export const MOSCOW_OFFSET_MS = 3 * 3_600_000;

/** The Moscow calendar date (YYYY-MM-DD) of an instant; such strings sort chronologically. */
export function moscowDay(instantMs: number): string {
  return new Date(instantMs + MOSCOW_OFFSET_MS).toISOString().slice(0, 10);
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * An instant's Moscow wall clock: a Date whose UTC fields read Moscow's date and time, for
 * formatting with `timeZone: "UTC"` or slicing its ISO string.
 */
export const moscowWallClock = (instant: string | number): Date => new Date(new Date(instant).getTime() + MOSCOW_OFFSET_MS);

/** The day after a day. */
export const nextDay = (day: string): string => new Date(Date.parse(`${day}T00:00:00Z`) + DAY_MS).toISOString().slice(0, 10);

/** Whether a string is a real calendar date YYYY-MM-DD (not 2026-02-30). */
export function isDay(s: string): boolean {
  if (!DAY.test(s)) return false;
  const midnightUtc = Date.parse(`${s}T00:00:00Z`);
  return !Number.isNaN(midnightUtc) && new Date(midnightUtc).toISOString().slice(0, 10) === s;
}

/** The first millisecond of a Moscow day (21:00 UTC of the day before), for a day of the YYYY-MM-DD shape. */
export const moscowDayStart = (day: string): number => Date.parse(`${day}T00:00:00Z`) - MOSCOW_OFFSET_MS;

/** The last millisecond of a Moscow day. */
export const moscowDayEnd = (day: string): number => moscowDayStart(day) + DAY_MS - 1;

/** The UTC instants bounding a Moscow day, its first millisecond and its last; undefined for anything that is not a real date. */
export function moscowDayBounds(day: string): { first: string; last: string } | undefined {
  if (!isDay(day)) return undefined;
  return { first: new Date(moscowDayStart(day)).toISOString(), last: new Date(moscowDayEnd(day)).toISOString() };
}

/**
 * The hold of receipts (docs/balance.md): the receipts of Moscow day D become available at
 * holdHour:00 Moscow time of the day after. This is that day.
 */
export const releaseDayOf = nextDay;

/**
 * The latest Moscow day whose receipts are available at `now`. Day D is released at holdHour:00
 * Moscow time of D+1, i.e. D is released exactly when D <= moscowDay(now − holdHour h − 1 day).
 */
export function lastReleasedDay(now: number, holdHour: number): string {
  return moscowDay(now - holdHour * HOUR_MS - DAY_MS);
}
