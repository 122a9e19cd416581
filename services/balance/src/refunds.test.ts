import { describe, expect, test } from "bun:test";
import { DomainError } from "@payaccept/contracts";
import { readBalance } from "./balance.ts";
import { applyPaymentEvent } from "./ledger.ts";
import { applyRefundEvent, reserveRefund } from "./refunds.ts";
import { ENGINES, fundAccount, holdOf, msk, nextEvent, paymentEvent, ledgerPerTest, refundEvent, thrownBy } from "./testing.ts";

describe.each(ENGINES)("on %s", (engine) => {
  const HOLD_HOUR = 12;
  const NOW = msk("2025-03-10T15:00:00");
  const ledger = ledgerPerTest(engine);

  const balance = (now = NOW) => readBalance(ledger.store, "account-1", now, HOLD_HOUR);
  const reserve = async (paid: ReturnType<typeof paymentEvent>, amountKopecks: number, refundId?: string) =>
    ({ reserved: (await reserveRefund(ledger.store, holdOf(paid, amountKopecks, refundId), NOW, HOLD_HOUR)).reserved });
  const ended = (paid: ReturnType<typeof paymentEvent>, refundId: string, balanceKopecks: number, status: "SUCCEEDED" | "FAILED", now = NOW) =>
    applyRefundEvent(ledger.store, refundEvent(paid, { refundId, balanceKopecks, status, at: now }), now, HOLD_HOUR);
  /** A receipt paid today (Moscow): still frozen at NOW. */
  const paidToday = async (amountKopecks: number) => {
    const paid = paymentEvent({ paidAt: new Date(msk("2025-03-10T10:00:00")).toISOString(), amountKopecks, commissionKopecks: 0 });
    await applyPaymentEvent(ledger.store, paid, NOW);
    return paid;
  };

  describe("refund hold", () => {
    test("takes the refund out of available at once; the SUCCEEDED event then takes nothing more", async () => {
      const paid = await fundAccount(ledger.store, "account-1", 10_000, NOW);
      const refundId = Bun.randomUUIDv7();
      expect(await reserve(paid, 10_000, refundId)).toEqual({ reserved: true });
      expect((await balance()).availableKopecks).toBe(0);
      expect(await ended(paid, refundId, 10_000, "SUCCEEDED")).toBe("refund-taken");
      expect((await balance()).availableKopecks).toBe(0);
    });

    test("a refund larger than available is refused with the figures, and nothing is taken", async () => {
      const paid = await fundAccount(ledger.store, "account-1", 3_000, NOW);
      expect(await thrownBy(() => reserve(paid, 5_000))).toEqual(
        new DomainError("REFUND_EXCEEDS_AVAILABLE", { neededKopecks: 5_000, availableKopecks: 3_000, frozenKopecks: 0 }),
      );
      expect((await balance()).availableKopecks).toBe(3_000);
    });

    test("is unique per refund: a repeat takes nothing more; several refunds of one payment each take their share", async () => {
      const paid = await fundAccount(ledger.store, "account-1", 10_000, NOW);
      const first = Bun.randomUUIDv7();
      await reserve(paid, 4_000, first);
      expect(await reserve(paid, 4_000, first)).toEqual({ reserved: true });
      expect((await balance()).availableKopecks).toBe(6_000);
      await reserve(paid, 5_000);
      expect((await balance()).availableKopecks).toBe(1_000);
    });

    test("a FAILED refund gives its hold back once; a late hold request afterwards takes nothing", async () => {
      const paid = await fundAccount(ledger.store, "account-1", 10_000, NOW);
      const refundId = Bun.randomUUIDv7();
      await reserve(paid, 10_000, refundId);
      expect(await ended(paid, refundId, 10_000, "FAILED")).toBe("refund-released");
      expect(await ended(paid, refundId, 10_000, "FAILED")).toBe("duplicate");
      expect((await balance()).availableKopecks).toBe(10_000);
      expect(await reserve(paid, 10_000, refundId)).toEqual({ reserved: false });
      expect((await balance()).availableKopecks).toBe(10_000);
    });

    test("a FAILED refund that never got its hold leaves a tombstone: the hold request, arriving late, takes nothing", async () => {
      // What a balance paused past payments' timeout sees when it resumes.
      const paid = await fundAccount(ledger.store, "account-1", 10_000, NOW);
      const refundId = Bun.randomUUIDv7();
      expect(await ended(paid, refundId, 10_000, "FAILED")).toBe("refund-released");
      expect(await reserve(paid, 10_000, refundId)).toEqual({ reserved: false });
      expect((await balance()).availableKopecks).toBe(10_000);
    });
  });

  describe("a refund of a receipt still frozen", () => {
    test("is taken from that receipt's own frozen day first, then from available", async () => {
      await fundAccount(ledger.store, "account-1", 2_000, NOW);
      const paid = await paidToday(8_000);
      await reserve(paid, 6_000);
      expect(await balance()).toMatchObject({ availableKopecks: 2_000, frozenKopecks: 2_000 });
      // The next refund of it takes the 2 000 left frozen and 1 000 of available.
      await reserve(paid, 3_000);
      expect(await balance()).toMatchObject({ availableKopecks: 1_000, frozenKopecks: 0 });
      // Tomorrow at the hold hour nothing more is released: the receipt was refunded.
      expect(await balance(msk("2025-03-11T12:00:00"))).toMatchObject({ availableKopecks: 1_000, frozenKopecks: 0 });
    });

    test("when the frozen part is not enough and available is short, it is refused and nothing is taken", async () => {
      const paid = await paidToday(5_000);
      expect(await thrownBy(() => reserve(paid, 6_000))).toEqual(
        new DomainError("REFUND_EXCEEDS_AVAILABLE", { neededKopecks: 6_000, availableKopecks: 0, frozenKopecks: 5_000 }),
      );
      expect(await balance()).toMatchObject({ availableKopecks: 0, frozenKopecks: 5_000 });
    });

    test("a declined refund puts the frozen part back on its day, or in available once that day is released", async () => {
      await fundAccount(ledger.store, "account-1", 1_000, NOW);
      const paid = await paidToday(4_000);
      const today = Bun.randomUUIDv7();
      await reserve(paid, 5_000, today);
      expect(await balance()).toMatchObject({ availableKopecks: 0, frozenKopecks: 0 });
      await ended(paid, today, 5_000, "FAILED");
      expect(await balance()).toMatchObject({ availableKopecks: 1_000, frozenKopecks: 4_000 });

      const later = Bun.randomUUIDv7();
      await reserve(paid, 4_000, later);
      const tomorrow = msk("2025-03-11T13:00:00");
      await ended(paid, later, 4_000, "FAILED", tomorrow);
      expect(await balance(tomorrow)).toMatchObject({ availableKopecks: 5_000, frozenKopecks: 0 });
    });
  });

  describe("a hold that arrives before its payment's SUCCESS event", () => {
    const paidTodayUnapplied = (amountKopecks: number) =>
      paymentEvent({ paidAt: new Date(msk("2025-03-10T10:00:00")).toISOString(), amountKopecks, commissionKopecks: 250 });

    test("credits the receipt first and holds the refund out of it; the event then credits nothing more", async () => {
      const paid = paidTodayUnapplied(10_000);
      const refundId = Bun.randomUUIDv7();
      expect(await reserveRefund(ledger.store, holdOf(paid, 4_000, refundId), NOW, HOLD_HOUR)).toEqual({ reserved: true, creditedReceipt: true });
      expect(await balance()).toMatchObject({ availableKopecks: 0, frozenKopecks: 9_750 - 4_000 });
      expect(await applyPaymentEvent(ledger.store, paid, NOW)).toBe("duplicate");
      expect(await ended(paid, refundId, 4_000, "SUCCEEDED")).toBe("refund-taken");
      expect(await balance()).toMatchObject({ availableKopecks: 0, frozenKopecks: 5_750 });
      // Tomorrow at the hold hour exactly the rest of the receipt becomes available.
      expect(await balance(msk("2025-03-11T12:00:00"))).toMatchObject({ availableKopecks: 5_750, frozenKopecks: 0 });
    });

    test("after the event, it credits nothing: the receipt counts once whichever came first", async () => {
      const paid = paidTodayUnapplied(10_000);
      expect(await applyPaymentEvent(ledger.store, paid, NOW)).toBe("receipt");
      expect(await reserveRefund(ledger.store, holdOf(paid, 9_750), NOW, HOLD_HOUR)).toEqual({ reserved: true, creditedReceipt: false });
      expect(await balance()).toMatchObject({ availableKopecks: 0, frozenKopecks: 0 });
    });

    test("a late SUCCESS of a day already released is credited to available, and the refund is held from it", async () => {
      const paid = paymentEvent({ paidAt: new Date(msk("2025-03-07T10:00:00")).toISOString(), amountKopecks: 10_000, commissionKopecks: 0 });
      expect(await reserveRefund(ledger.store, holdOf(paid, 3_000), NOW, HOLD_HOUR)).toEqual({ reserved: true, creditedReceipt: true });
      expect(await balance()).toMatchObject({ availableKopecks: 7_000, frozenKopecks: 0 });
      expect(await applyPaymentEvent(ledger.store, paid, NOW)).toBe("duplicate");
      expect(await balance()).toMatchObject({ availableKopecks: 7_000, frozenKopecks: 0 });
    });

    test("refused, it credits nothing either: the event credits the receipt when it comes", async () => {
      // A debt of 2 000 (a refund the provider paid beyond the receipt), then a late SUCCESS of a released day.
      await ended(await paidToday(5_000), Bun.randomUUIDv7(), 7_000, "SUCCEEDED");
      const late = paymentEvent({ paidAt: new Date(msk("2025-03-07T10:00:00")).toISOString(), amountKopecks: 1_000, commissionKopecks: 0 });
      expect(await thrownBy(() => reserveRefund(ledger.store, holdOf(late, 1_000), NOW, HOLD_HOUR))).toEqual(
        new DomainError("REFUND_EXCEEDS_AVAILABLE", { neededKopecks: 1_000, availableKopecks: -1_000, frozenKopecks: 0 }),
      );
      expect(await balance()).toMatchObject({ availableKopecks: -2_000, frozenKopecks: 0 });
      expect(await applyPaymentEvent(ledger.store, late, NOW)).toBe("receipt");
      expect(await balance()).toMatchObject({ availableKopecks: -1_000, frozenKopecks: 0 });
    });
  });

  describe("SUCCEEDED event without a hold", () => {
    test("the provider has paid anyway, so the money is taken, from the frozen day first, available even below zero", async () => {
      const paid = await paidToday(5_000);
      expect(await ended(paid, Bun.randomUUIDv7(), 7_000, "SUCCEEDED")).toBe("refund-taken");
      expect(await balance()).toMatchObject({ availableKopecks: -2_000, frozenKopecks: 0 });
    });

    test("replayed, it takes the money once", async () => {
      const paid = await fundAccount(ledger.store, "account-1", 10_000, NOW);
      const refundId = Bun.randomUUIDv7();
      expect(await ended(paid, refundId, 10_000, "SUCCEEDED")).toBe("refund-taken");
      expect(await ended(paid, refundId, 10_000, "SUCCEEDED")).toBe("duplicate");
      expect((await balance()).availableKopecks).toBe(0);
    });
  });

  describe("what does not move money", () => {
    test("a sandbox refund and the REFUNDED payment event: each refund already moved its own share", async () => {
      const paid = await fundAccount(ledger.store, "account-1", 10_000, NOW);
      expect(await ended({ ...paid, isTest: true }, Bun.randomUUIDv7(), 10_000, "SUCCEEDED")).toBe("sandbox");
      expect(await applyPaymentEvent(ledger.store, nextEvent(paid, "REFUNDED", new Date(NOW).toISOString()), NOW)).toBe("no-money");
      expect((await balance()).availableKopecks).toBe(10_000);
    });
  });
});
