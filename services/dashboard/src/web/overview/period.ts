import { moscowDate, moscowDayBounds } from "../moscow-time.ts";

const DAY_MS = 86_400_000;
/** Long enough for a quarter; a daily bar chart of more stops being readable on a phone. */
export const MAX_PERIOD_DAYS = 93;
export const DEFAULT_PERIOD_DAYS = 30;
export const PRESETS = [7, 30, 90] as const;

export type OverviewQuery = { from: string; to: string; shopId: string };
export type PeriodProblem = "badFrom" | "badTo" | "fromAfterTo" | "periodTooLong";

/** The Moscow days [from, to] ending today, `days` long. */
export function lastDays(days: number, now: number): { from: string; to: string } {
  return { from: moscowDate(now - (days - 1) * DAY_MS), to: moscowDate(now) };
}

/**
 * The overview's period and shop as asked for; an absent date falls back to the last 30 days.
 * The period is whole Moscow days, as the rollup is.
 */
export function readOverviewQuery(query: (name: string) => string | undefined, now: number): OverviewQuery {
  const fallback = lastDays(DEFAULT_PERIOD_DAYS, now);
  return { from: query("from")?.trim() || fallback.from, to: query("to")?.trim() || fallback.to, shopId: query("shop")?.trim() ?? "" };
}

export function periodProblems(q: OverviewQuery): PeriodProblem[] {
  const from = moscowDayBounds(q.from);
  const to = moscowDayBounds(q.to);
  const problems: PeriodProblem[] = [];
  if (!from) problems.push("badFrom");
  if (!to) problems.push("badTo");
  if (from && to && from.first > to.last) problems.push("fromAfterTo");
  else if (from && to && (Date.parse(to.last) - Date.parse(from.first) + 1) / DAY_MS > MAX_PERIOD_DAYS) problems.push("periodTooLong");
  return problems;
}
