import type { PayoutSchedule, PayoutScheduleView } from "@payaccept/contracts";
import { moscowDay, moscowDayStart, nextDay } from "@payaccept/domain";
import { releaseDueReceipts } from "./balance.ts";
import type { DetailsOf } from "./payment-orders.ts";
import { createReleasedPayoutIn } from "./payouts.ts";
import type { LedgerStore } from "./store/ledger-store.ts";
import type { PayoutScheduleRow } from "./store/payout-store.ts";

const MINUTE_MS = 60_000;

/** ISO weekday (1 Monday … 7 Sunday) of a Moscow day. */
const weekdayOf = (day: string) => ((new Date(`${day}T00:00:00Z`).getUTCDay() + 6) % 7) + 1;

/**
 * The first instant after `after` the schedule is due: its Moscow time of the day (a daily one),
 * or of its weekday (a weekly one). Moscow keeps UTC+3 all year, so a schedule's instant never moves.
 */
export function nextRunAfter(s: PayoutSchedule, after: number): number {
  const [hours, minutes] = s.time.split(":").map(Number) as [number, number];
  let day = moscowDay(after);
  for (let i = 0; i < 8; i++, day = nextDay(day)) {
    const at = moscowDayStart(day) + (hours * 60 + minutes) * MINUTE_MS;
    if (at > after && (s.weekday === null || weekdayOf(day) === s.weekday)) return at;
  }
  throw new Error("no run within a week"); // unreachable: every weekday comes within 7 days
}

const scheduleOf = (r: PayoutScheduleRow): PayoutSchedule => ({ frequency: r.frequency, weekday: r.weekday, time: r.time, minimumKopecks: r.minimumKopecks });

export function scheduleView(r: PayoutScheduleRow | undefined): PayoutScheduleView {
  return r ? { schedule: scheduleOf(r), nextPayoutAt: new Date(r.nextRunAt).toISOString() } : { schedule: null, nextPayoutAt: null };
}

export async function getSchedule(store: LedgerStore, accountId: string): Promise<PayoutScheduleView> {
  return scheduleView(await store.schedule(accountId));
}

/** Sets the account's schedule (its next run worked out from now), or turns it off. The same schedule again keeps its next run. */
export async function setSchedule(store: LedgerStore, accountId: string, schedule: PayoutSchedule | null, now: number): Promise<{ view: PayoutScheduleView; before: PayoutSchedule | null; changed: boolean }> {
  return store.tx(accountId, async (t) => {
    const current = await t.schedule(accountId);
    const before = current ? scheduleOf(current) : null;
    if (JSON.stringify(before) === JSON.stringify(schedule)) return { view: scheduleView(current), before, changed: false };
    if (schedule === null) {
      await t.deleteSchedule(accountId);
      return { view: scheduleView(undefined), before, changed: true };
    }
    const row: PayoutScheduleRow = { accountId, ...schedule, nextRunAt: nextRunAfter(schedule, now), updatedAt: now };
    await t.putSchedule(row);
    return { view: scheduleView(row), before, changed: true };
  });
}

/** What a run of the scheduler did for one account. */
export type ScheduledRun = { accountId: string; runAt: number; payoutId: string | null; amountKopecks: number; skipped?: "noDetails" | "nothingAbove" };

/**
 * The scheduler's pass (docs/balance.md, "Scheduled payouts"), run by every replica: each due
 * schedule, in its account's transaction, is moved on to its next run (one conditional UPDATE: of
 * two replicas one moves it, the other does nothing) and makes a payout of what is available
 * above its minimum, keyed by the run (`schedule:<instant>`, UNIQUE per account), committed
 * together. A run missed while no balance ran is made once, now. An account without payout
 * details makes none (it could not be sent) and waits for the next run.
 */
export async function runDueSchedules(store: LedgerStore, deps: { detailsOf: DetailsOf; now: number; holdHour: number; limit: number }): Promise<ScheduledRun[]> {
  const due = await store.dueSchedules(deps.now, deps.limit);
  if (due.length === 0) return [];
  const details = await deps.detailsOf(due.map((s) => s.accountId));
  const runs: ScheduledRun[] = [];
  for (const s of due) {
    const run = await store.tx(s.accountId, async (t): Promise<ScheduledRun | undefined> => {
      if (!(await t.advanceSchedule(s.accountId, s.nextRunAt, nextRunAfter(scheduleOf(s), deps.now)))) return undefined;
      const base = { accountId: s.accountId, runAt: s.nextRunAt, payoutId: null, amountKopecks: 0 };
      if (!details.get(s.accountId)?.details) return { ...base, skipped: "noDetails" };
      await releaseDueReceipts(t, s.accountId, deps.now, deps.holdHour);
      const above = (await t.available(s.accountId)) - s.minimumKopecks;
      if (above <= 0) return { ...base, skipped: "nothingAbove" };
      const { payout } = await createReleasedPayoutIn(t, { accountId: s.accountId, amountKopecks: above, idempotencyKey: `schedule:${s.nextRunAt}`, scheduled: true }, deps.now);
      return { ...base, payoutId: payout.payout.id, amountKopecks: above };
    });
    if (run) runs.push(run);
  }
  return runs;
}
