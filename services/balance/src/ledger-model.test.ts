import { expect, test } from "bun:test";
import { DomainError, type PaymentEvent } from "@payaccept/contracts";
import { readBalance } from "./balance.ts";
import { applyPaymentEvent } from "./ledger.ts";
import { createPayout } from "./payouts.ts";
import { applyRefundEvent, reserveRefund } from "./refunds.ts";
import { ENGINES, holdOf, ledgersPerFile, msk, paymentEvent, refundEvent } from "./testing.ts";

/**
 * The aggregates (hold buckets released lazily, running available) against a naive model that
 * keeps every movement and sums them at each read, with release days taken from the time-zone
 * database rather than our offset arithmetic. A seeded random walk over ten days.
 */
const HOLD_HOUR = 12;
const HOUR = 3_600_000;
const ACCOUNTS = ["a", "b", "c"];
const ledgers = ledgersPerFile();
/** 3,000 steps of a few statements each: seconds alone, minutes on PostgreSQL when other test files share the two cores. */
const WALK_LIVENESS_MS = 600_000;

function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// The model reads Moscow days from the tz database, not from packages/domain/src/moscow-time.ts: an independent oracle.
const moscowDate = new Intl.DateTimeFormat("en-CA", { timeZone: "Europe/Moscow" });
const releaseInstant = (paidAt: number) =>
  Date.parse(`${moscowDate.format(paidAt)}T${String(HOLD_HOUR).padStart(2, "0")}:00:00+03:00`) + 24 * HOUR;

type Movement = { accountId: string; kopecks: number; from: number };
const model = (movements: Movement[], accountId: string, now: number) => {
  const mine = movements.filter((m) => m.accountId === accountId);
  const sum = (ms: Movement[]) => ms.reduce((s, m) => s + m.kopecks, 0);
  return {
    availableKopecks: sum(mine.filter((m) => m.from <= now)),
    frozenKopecks: sum(mine.filter((m) => m.from > now)),
    holdHour: HOLD_HOUR,
  };
};

test.each(ENGINES)("on %s, aggregates always equal the sum of every movement", async (engine) => {
  const store = await ledgers.open(engine);
  const movements: Movement[] = [];
  const rnd = random(20250310);
  const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)]!;
  const paid: PaymentEvent[] = [];
  const refunded = new Set<string>();
  let now = msk("2025-03-10T00:00:00");
  for (let step = 0; step < 3000; step++) {
    now += Math.floor(rnd() * 10 * 60_000);
    const roll = rnd();
    if (roll < 0.45) {
      // Up to two days late, so some receipts arrive after their own release time.
      const paidAt = now - Math.floor(rnd() * 48 * HOUR);
      const amount = 100 + Math.floor(rnd() * 100_000);
      const e = paymentEvent({
        accountId: pick(ACCOUNTS),
        paidAt: new Date(paidAt).toISOString(),
        amountKopecks: amount,
        commissionKopecks: Math.floor(amount * 0.025),
      });
      await applyPaymentEvent(store, e, now);
      paid.push(e);
      movements.push({ accountId: e.accountId, kopecks: e.amountKopecks - e.commissionKopecks, from: releaseInstant(paidAt) });
    } else if (roll < 0.55 && paid.length > 0) {
      expect(await applyPaymentEvent(store, { ...pick(paid), eventId: "replayed" }, now)).toBe("duplicate");
    } else if (roll < 0.65 && paid.length > 0) {
      const e = pick(paid);
      if (refunded.has(e.paymentId)) continue;
      const net = e.amountKopecks - e.commissionKopecks;
      // A refund takes first from its own receipt's day while that day is still frozen.
      const release = releaseInstant(Date.parse(e.paidAt!));
      const frozenOfDay = release > now ? movements.filter((m) => m.accountId === e.accountId && m.from === release).reduce((s, m) => s + m.kopecks, 0) : 0;
      const fromFrozen = Math.min(net, Math.max(0, frozenOfDay));
      const fits = net - fromFrozen === 0 || model(movements, e.accountId, now).availableKopecks >= net - fromFrozen;
      const refundId = Bun.randomUUIDv7();
      try {
        await reserveRefund(store, holdOf(e, net, refundId), now, HOLD_HOUR);
        expect(fits).toBe(true);
      } catch (err) {
        expect(err).toBeInstanceOf(DomainError);
        expect(fits).toBe(false);
        continue;
      }
      // One in five is declined by the bank: its hold goes back where it came from.
      const status = rnd() < 0.8 ? "SUCCEEDED" : "FAILED";
      await applyRefundEvent(store, refundEvent(e, { refundId, balanceKopecks: net, status, at: now }), now, HOLD_HOUR);
      if (status === "FAILED") continue;
      movements.push({ accountId: e.accountId, kopecks: -fromFrozen, from: release }, { accountId: e.accountId, kopecks: -(net - fromFrozen), from: 0 });
      refunded.add(e.paymentId);
    } else if (roll < 0.75) {
      const accountId = pick(ACCOUNTS);
      const amount = 1 + Math.floor(rnd() * 150_000);
      const fits = model(movements, accountId, now).availableKopecks >= amount;
      try {
        await createPayout(store, { accountId, amountKopecks: amount }, now, HOLD_HOUR);
        expect(fits).toBe(true);
        movements.push({ accountId, kopecks: -amount, from: 0 });
      } catch (err) {
        expect(err).toBeInstanceOf(DomainError);
        expect(fits).toBe(false);
      }
    } else {
      const accountId = pick(ACCOUNTS);
      expect(await readBalance(store, accountId, now, HOLD_HOUR)).toEqual(model(movements, accountId, now));
    }
  }
  for (const accountId of ACCOUNTS) expect(await readBalance(store, accountId, now, HOLD_HOUR)).toEqual(model(movements, accountId, now));
}, WALK_LIVENESS_MS);
