import { moscowDay } from "@payaccept/platform";

export { moscowDay };

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/**
 * The latest Moscow day whose receipts are available at `now`. Day D is released at holdHour:00
 * Moscow time of D+1, i.e. D is released exactly when D <= moscowDay(now − holdHour h − 1 day).
 */
export function lastReleasedDay(now: number, holdHour: number): string {
  return moscowDay(now - holdHour * HOUR_MS - DAY_MS);
}
