/** Moscow has kept UTC+3 all year since 2014 (no DST), so a fixed offset is exact. */
export const MOSCOW_OFFSET_MS = 3 * 3_600_000;

/** The Moscow calendar date (YYYY-MM-DD) of an instant; such strings sort chronologically. */
export function moscowDay(instantMs: number): string {
  return new Date(instantMs + MOSCOW_OFFSET_MS).toISOString().slice(0, 10);
}
