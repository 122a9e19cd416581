import { describe, expect, test } from "bun:test";
import { readBalance } from "./balance.ts";
import { getSchedule, nextRunAfter, runDueSchedules, setSchedule } from "./payout-schedule.ts";
import { listPayouts } from "./payouts.ts";
import type { LedgerOps, LedgerStore } from "./store/ledger-store.ts";
import { detailsFor, ENGINES, fundAccount, ledgersPerFile, msk, PAYEE } from "./testing.ts";

const HOLD_HOUR = 12;
const daily = (time: string, minimumKopecks = 0) => ({ frequency: "daily" as const, weekday: null, time, minimumKopecks });
const weekly = (weekday: number, time: string, minimumKopecks = 0) => ({ frequency: "weekly" as const, weekday, time, minimumKopecks });

describe("the next run", () => {
  test("daily at a Moscow time: later today, or tomorrow once it has passed; Moscow's day, not UTC's", () => {
    expect(nextRunAfter(daily("10:00"), msk("2026-03-10T09:59:59"))).toBe(msk("2026-03-10T10:00:00"));
    expect(nextRunAfter(daily("10:00"), msk("2026-03-10T10:00:00"))).toBe(msk("2026-03-11T10:00:00"));
    // 01:30 Moscow is 22:30 UTC of the day before: the Moscow date decides.
    expect(nextRunAfter(daily("01:30"), msk("2026-03-10T23:00:00"))).toBe(msk("2026-03-11T01:30:00"));
  });

  test("weekly on a weekday: that day's time, this week or the next", () => {
    // 2026-03-10 is a Tuesday.
    expect(nextRunAfter(weekly(5, "18:00"), msk("2026-03-10T12:00:00"))).toBe(msk("2026-03-13T18:00:00"));
    expect(nextRunAfter(weekly(2, "18:00"), msk("2026-03-10T12:00:00"))).toBe(msk("2026-03-10T18:00:00"));
    expect(nextRunAfter(weekly(2, "11:00"), msk("2026-03-10T12:00:00"))).toBe(msk("2026-03-17T11:00:00"));
    expect(nextRunAfter(weekly(7, "00:00"), msk("2026-03-10T12:00:00"))).toBe(msk("2026-03-15T00:00:00"));
  });
});

const ledgers = ledgersPerFile();

/** The store, counting how often its transactions look for receipts whose hold has ended. */
function countingReleases(store: LedgerStore): { store: LedgerStore; looks: () => number } {
  let looks = 0;
  const counted = (t: LedgerOps): LedgerOps =>
    new Proxy(t, { get: (o, k) => (k === "releasedFrozen" ? (...a: Parameters<LedgerOps["releasedFrozen"]>) => (looks++, o.releasedFrozen(...a)) : Reflect.get(o, k)) });
  const wrapped = new Proxy(store, {
    get: (o, k) => (k === "tx" ? (accounts: string, fn: (t: LedgerOps) => Promise<unknown>, opts?: { waitMs?: number }) => o.tx(accounts, (t) => fn(counted(t)), opts) : Reflect.get(o, k)),
  });
  return { store: wrapped, looks: () => looks };
}

describe.each(ENGINES)("scheduled payouts (%s)", (engine) => {
  const NOW = msk("2026-03-10T15:00:00");
  const details = detailsFor({ "account-1": { details: PAYEE }, "account-2": { details: PAYEE } });

  test("a due run pays out what is available above the minimum, once, and moves on to the next run", async () => {
    const store = await ledgers.open(engine);
    await fundAccount(store, "account-1", 100_000, NOW);
    const set = await setSchedule(store, "account-1", daily("16:00", 30_000), NOW);
    expect(set.view).toEqual({ schedule: daily("16:00", 30_000), nextPayoutAt: new Date(msk("2026-03-10T16:00:00")).toISOString() });
    // Not due yet.
    expect(await runDueSchedules(store, { detailsOf: details, now: NOW, holdHour: HOLD_HOUR, limit: 10 })).toEqual([]);
    const at = msk("2026-03-10T16:00:05");
    const runs = await runDueSchedules(store, { detailsOf: details, now: at, holdHour: HOLD_HOUR, limit: 10 });
    expect(runs).toEqual([{ accountId: "account-1", runAt: msk("2026-03-10T16:00:00"), payoutId: expect.any(String), amountKopecks: 70_000 }]);
    expect((await listPayouts(store, "account-1", 10)).items).toEqual([expect.objectContaining({ amountKopecks: 70_000, scheduled: true, status: "PENDING" })]);
    expect((await readBalance(store, "account-1", at, HOLD_HOUR)).availableKopecks).toBe(30_000);
    expect((await getSchedule(store, "account-1")).nextPayoutAt).toBe(new Date(msk("2026-03-11T16:00:00")).toISOString());
    // Run again at the same moment: nothing is due any more.
    expect(await runDueSchedules(store, { detailsOf: details, now: at, holdHour: HOLD_HOUR, limit: 10 })).toEqual([]);
  });

  test("a run releases the account's receipts whose hold has ended once, and pays them out", async () => {
    const { store, looks } = countingReleases(await ledgers.open(engine));
    await setSchedule(store, "account-1", daily("16:00"), NOW);
    // Paid three days before: its hold has ended, its money still frozen until something releases it.
    await fundAccount(store, "account-1", 40_000, NOW);
    const before = looks();
    const runs = await runDueSchedules(store, { detailsOf: details, now: msk("2026-03-10T16:00:05"), holdHour: HOLD_HOUR, limit: 10 });
    expect(runs).toEqual([expect.objectContaining({ accountId: "account-1", amountKopecks: 40_000 })]);
    expect(looks() - before).toBe(1);
  });

  test("two replicas running the scheduler at once make each run's payout once", async () => {
    const [a, b] = await ledgers.replicas(engine);
    await fundAccount(a, "account-1", 50_000, NOW);
    await fundAccount(a, "account-2", 20_000, NOW);
    await setSchedule(a, "account-1", daily("15:30"), NOW);
    await setSchedule(a, "account-2", weekly(2, "15:30", 5_000), NOW);
    const at = msk("2026-03-10T15:31:00");
    const [x, y] = await Promise.all([a, b].map((store) => runDueSchedules(store, { detailsOf: details, now: at, holdHour: HOLD_HOUR, limit: 10 })));
    expect([...x!, ...y!].map((r) => [r.accountId, r.amountKopecks]).sort()).toEqual([
      ["account-1", 50_000],
      ["account-2", 15_000],
    ]);
    expect((await listPayouts(a, "account-1", 10)).items).toHaveLength(1);
    expect((await listPayouts(b, "account-2", 10)).items).toHaveLength(1);
  });

  test("nothing above the minimum, or no details: no payout, and the next run is the next one", async () => {
    const store = await ledgers.open(engine);
    await fundAccount(store, "account-1", 10_000, NOW);
    await fundAccount(store, "account-3", 10_000, NOW);
    await setSchedule(store, "account-1", daily("15:10", 10_000), NOW);
    await setSchedule(store, "account-3", daily("15:10"), NOW);
    const at = msk("2026-03-10T15:10:00");
    const runs = await runDueSchedules(store, { detailsOf: details, now: at, holdHour: HOLD_HOUR, limit: 10 });
    expect(runs.map((r) => [r.accountId, r.skipped]).sort()).toEqual([
      ["account-1", "nothingAbove"],
      ["account-3", "noDetails"],
    ]);
    expect((await listPayouts(store, "account-3", 10)).items).toEqual([]);
    expect((await getSchedule(store, "account-3")).nextPayoutAt).toBe(new Date(msk("2026-03-11T15:10:00")).toISOString());
  });

  test("runs missed while no balance ran are made once, now; a schedule turned off makes none", async () => {
    const store = await ledgers.open(engine);
    await fundAccount(store, "account-1", 40_000, NOW);
    await setSchedule(store, "account-1", daily("09:00"), NOW);
    const threeDaysLater = msk("2026-03-13T20:00:00");
    const runs = await runDueSchedules(store, { detailsOf: details, now: threeDaysLater, holdHour: HOLD_HOUR, limit: 10 });
    expect(runs.map((r) => r.amountKopecks)).toEqual([40_000]);
    expect((await getSchedule(store, "account-1")).nextPayoutAt).toBe(new Date(msk("2026-03-14T09:00:00")).toISOString());
    expect((await setSchedule(store, "account-1", null, threeDaysLater)).view).toEqual({ schedule: null, nextPayoutAt: null });
    await fundAccount(store, "account-1", 5_000, threeDaysLater);
    expect(await runDueSchedules(store, { detailsOf: details, now: msk("2026-03-20T09:00:00"), holdHour: HOLD_HOUR, limit: 10 })).toEqual([]);
  });
});
