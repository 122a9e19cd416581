const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** Moscow has kept UTC+3 all year since 2014 (no DST), so a fixed offset is exact. */
const MOSCOW_OFFSET_MS = 3 * HOUR_MS;

/** The Moscow calendar date (YYYY-MM-DD) of an instant; such strings sort chronologically. */
export function moscowDay(instantMs: number): string {
  return new Date(instantMs + MOSCOW_OFFSET_MS).toISOString().slice(0, 10);
}

/**
 * The latest Moscow day whose receipts are available at `now`. Day D is released at holdHour:00
 * Moscow time of D+1, i.e. D is released exactly when D <= moscowDay(now − holdHour h − 1 day).
 */
export function lastReleasedDay(now: number, holdHour: number): string {
  return moscowDay(now - holdHour * HOUR_MS - DAY_MS);
}
