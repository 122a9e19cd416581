import { beforeEach, describe, expect, test } from "bun:test";
import { readBalance } from "./balance.ts";
import { applyPaymentEvent, applyPaymentEvents } from "./ledger.ts";
import { ENGINES, msk, nextEvent, paymentEvent, ledgerPerTest } from "./testing.ts";

describe.each(ENGINES)("on %s", (engine) => {
  const HOLD_HOUR = 12;
  const ledger = ledgerPerTest(engine);

  const balanceAt = (now: number, accountId = "account-1") => readBalance(ledger.store, accountId, now, HOLD_HOUR);
  const paidAtMsk = (local: string) => new Date(msk(local)).toISOString();

  describe("hold of a receipt", () => {
    // Paid on 10 March (Moscow): frozen until 12:00 Moscow time on 11 March.
    const paid = paymentEvent({ paidAt: paidAtMsk("2025-03-10T10:00:00"), amountKopecks: 10_000, commissionKopecks: 70 });
    beforeEach(async () => void (await applyPaymentEvent(ledger.store, paid, msk("2025-03-10T10:00:01"))));

    test("the receipt is amount − commission, frozen on the day it was paid", async () => {
      expect(await balanceAt(msk("2025-03-10T10:00:01"))).toEqual({ availableKopecks: 0, frozenKopecks: 9_930, holdHour: 12 });
    });

    test("one millisecond before holdHour of the next day it is still frozen", async () => {
      expect(await balanceAt(msk("2025-03-11T11:59:59.999"))).toMatchObject({ availableKopecks: 0, frozenKopecks: 9_930 });
    });

    test("at holdHour:00 of the next day it is available", async () => {
      expect(await balanceAt(msk("2025-03-11T12:00:00.000"))).toMatchObject({ availableKopecks: 9_930, frozenKopecks: 0 });
    });

    test("just after holdHour it stays available, and reading twice does not release it twice", async () => {
      expect(await balanceAt(msk("2025-03-11T12:00:00.001"))).toMatchObject({ availableKopecks: 9_930, frozenKopecks: 0 });
      expect(await balanceAt(msk("2025-03-11T12:00:00.002"))).toMatchObject({ availableKopecks: 9_930, frozenKopecks: 0 });
    });

    test("receipts of the next day stay frozen while the first day's are released", async () => {
      const nextDay = paymentEvent({ paidAt: paidAtMsk("2025-03-11T09:00:00"), amountKopecks: 5_000, commissionKopecks: 0 });
      await applyPaymentEvent(ledger.store, nextDay, msk("2025-03-11T09:00:00"));
      expect(await balanceAt(msk("2025-03-11T12:00:00"))).toMatchObject({ availableKopecks: 9_930, frozenKopecks: 5_000 });
      expect(await balanceAt(msk("2025-03-12T12:00:00"))).toMatchObject({ availableKopecks: 14_930, frozenKopecks: 0 });
    });
  });

  describe("Moscow day versus UTC day", () => {
    test("a payment at 22:30 UTC belongs to the next Moscow day and is released a day later than one at 20:30 UTC", async () => {
      const evening = paymentEvent({ paidAt: "2025-03-10T20:30:00.000Z", amountKopecks: 1_000, commissionKopecks: 0 });
      const lateNight = paymentEvent({ paidAt: "2025-03-10T22:30:00.000Z", amountKopecks: 2_000, commissionKopecks: 0 });
      await applyPaymentEvent(ledger.store, evening, msk("2025-03-11T02:00:00"));
      await applyPaymentEvent(ledger.store, lateNight, msk("2025-03-11T02:00:00"));
      expect(await balanceAt(msk("2025-03-11T12:00:00"))).toMatchObject({ availableKopecks: 1_000, frozenKopecks: 2_000 });
      expect(await balanceAt(msk("2025-03-12T11:59:59.999"))).toMatchObject({ availableKopecks: 1_000, frozenKopecks: 2_000 });
      expect(await balanceAt(msk("2025-03-12T12:00:00"))).toMatchObject({ availableKopecks: 3_000, frozenKopecks: 0 });
    });
  });

  describe("late SUCCESS", () => {
    test("SUCCESS after EXPIRED counts by its own paidAt, and EXPIRED moves no money", async () => {
      const created = paymentEvent({
        status: "EXPIRED",
        paidAt: null,
        createdAt: paidAtMsk("2025-03-09T23:40:00"),
        occurredAt: paidAtMsk("2025-03-10T00:00:00"),
        amountKopecks: 4_000,
        commissionKopecks: 28,
      });
      expect(await applyPaymentEvent(ledger.store, created, msk("2025-03-10T00:00:00"))).toBe("no-money");
      const late = { ...nextEvent(created, "SUCCESS", paidAtMsk("2025-03-10T13:00:00")), paidAt: paidAtMsk("2025-03-10T13:00:00") };
      expect(await applyPaymentEvent(ledger.store, late, msk("2025-03-10T13:00:01"))).toBe("receipt");
      // Created on the 9th, paid on the 10th: released with the 10th, on the 11th at noon.
      expect(await balanceAt(msk("2025-03-10T12:00:00"))).toMatchObject({ availableKopecks: 0, frozenKopecks: 3_972 });
      expect(await balanceAt(msk("2025-03-11T11:59:59"))).toMatchObject({ availableKopecks: 0, frozenKopecks: 3_972 });
      expect(await balanceAt(msk("2025-03-11T12:00:00"))).toMatchObject({ availableKopecks: 3_972, frozenKopecks: 0 });
    });

    test("a receipt whose release time passed before it was consumed is available at once", async () => {
      const longAgo = paymentEvent({ paidAt: paidAtMsk("2025-03-01T10:00:00"), amountKopecks: 700, commissionKopecks: 0 });
      await applyPaymentEvent(ledger.store, longAgo, msk("2025-03-10T10:00:00"));
      expect(await balanceAt(msk("2025-03-10T10:00:00"))).toMatchObject({ availableKopecks: 700, frozenKopecks: 0 });
    });
  });

  describe("idempotency and scope", () => {
    test("a replayed event is not counted twice", async () => {
      const paid = paymentEvent({ amountKopecks: 10_000, commissionKopecks: 250 });
      expect(await applyPaymentEvent(ledger.store, paid, msk("2025-03-10T10:00:00"))).toBe("receipt");
      expect(await applyPaymentEvent(ledger.store, { ...paid, eventId: "republished" }, msk("2025-03-10T10:05:00"))).toBe("duplicate");
      expect((await balanceAt(msk("2025-03-10T11:00:00"))).frozenKopecks).toBe(9_750);
    });

    test("sandbox payments never touch the balance", async () => {
      const test = paymentEvent({ isTest: true, amountKopecks: 50_000 });
      expect(await applyPaymentEvent(ledger.store, test, msk("2025-03-10T10:00:00"))).toBe("sandbox");
      const refunded = nextEvent(test, "REFUNDED", paidAtMsk("2025-03-10T11:00:00"));
      expect(await applyPaymentEvent(ledger.store, refunded, msk("2025-03-10T11:00:00"))).toBe("sandbox");
      expect(await balanceAt(msk("2025-03-20T12:00:00"))).toMatchObject({ availableKopecks: 0, frozenKopecks: 0 });
    });

    test("the balance is per owner account: its shops add up, other accounts are apart", async () => {
      const receipts = [
        paymentEvent({ shopId: "shop-a", amountKopecks: 1_000, commissionKopecks: 10 }),
        paymentEvent({ shopId: "shop-b", amountKopecks: 2_000, commissionKopecks: 20 }),
        paymentEvent({ shopId: "shop-c", accountId: "account-2", amountKopecks: 4_000, commissionKopecks: 0 }),
      ];
      for (const e of receipts) await applyPaymentEvent(ledger.store, e, msk("2025-03-10T10:00:00"));
      expect((await balanceAt(msk("2025-03-10T11:00:00"))).frozenKopecks).toBe(2_970);
      expect((await balanceAt(msk("2025-03-10T11:00:00"), "account-2")).frozenKopecks).toBe(4_000);
    });

    test("a batch applies each event as alone, in order: copies within it and of earlier events are duplicates", async () => {
      const now = msk("2025-03-10T10:00:00");
      const earlier = paymentEvent({ amountKopecks: 500, commissionKopecks: 0 });
      await applyPaymentEvent(ledger.store, earlier, now);
      const a = paymentEvent({ amountKopecks: 1_000, commissionKopecks: 10 });
      const b = paymentEvent({ accountId: "account-2", amountKopecks: 4_000, commissionKopecks: 0 });
      const yesterday = paymentEvent({ paidAt: paidAtMsk("2025-03-09T10:00:00"), amountKopecks: 2_000, commissionKopecks: 0 });
      const batch = [a, b, { ...a, eventId: "again" }, paymentEvent({ isTest: true }), earlier, nextEvent(a, "REFUNDED", paidAtMsk("2025-03-10T10:30:00")), yesterday];
      expect(await applyPaymentEvents(ledger.store, batch, now)).toEqual(["receipt", "receipt", "duplicate", "sandbox", "duplicate", "no-money", "receipt"]);
      // At 12:00 Moscow time on 10 March the receipt of the 9th is released, those of the 10th are not.
      expect(await balanceAt(msk("2025-03-10T12:00:00"))).toMatchObject({ availableKopecks: 2_000, frozenKopecks: 500 + 990 });
      expect(await balanceAt(msk("2025-03-10T11:00:00"), "account-2")).toMatchObject({ availableKopecks: 0, frozenKopecks: 4_000 });
      expect(await applyPaymentEvents(ledger.store, batch, now)).toEqual(["duplicate", "duplicate", "duplicate", "sandbox", "duplicate", "no-money", "duplicate"]);
    });

    test("an account the ledger has never seen has zeros", async () => {
      expect(await balanceAt(msk("2025-03-10T11:00:00"), "nobody")).toEqual({ availableKopecks: 0, frozenKopecks: 0, holdHour: 12 });
    });
  });
});
