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

/** The first millisecond of a Moscow day (21:00 UTC of the day before); undefined for anything that is not a real YYYY-MM-DD date. */
export function moscowDayStart(day: string): number | undefined {
  if (!DAY.test(day)) return undefined;
  const midnightUtc = Date.parse(`${day}T00:00:00Z`);
  if (Number.isNaN(midnightUtc) || new Date(midnightUtc).toISOString().slice(0, 10) !== day) return undefined;
  return midnightUtc - MOSCOW_OFFSET_MS;
}

/** The UTC instants bounding a Moscow day: its first millisecond and its last. */
export function moscowDayBounds(day: string): { first: string; last: string } | undefined {
  const first = moscowDayStart(day);
  if (first === undefined) return undefined;
  return { first: new Date(first).toISOString(), last: new Date(first + DAY_MS - 1).toISOString() };
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
