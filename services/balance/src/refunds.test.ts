import { describe, expect, test } from "bun:test";
import { DomainError } from "@payaccept/contracts";
import { readBalance } from "./balance.ts";
import { applyPaymentEvent } from "./ledger.ts";
import { applyRefundEvent, reserveRefund } from "./refunds.ts";
import { fundAccount, msk, nextEvent, paymentEvent, ledgerPerTest, refundEvent, thrownBy } from "./testing.ts";

const HOLD_HOUR = 12;
const NOW = msk("2025-03-10T15:00:00");
const ledger = ledgerPerTest();

const balance = (now = NOW) => readBalance(ledger.store, "account-1", now, HOLD_HOUR);
const reserve = (paymentId: string, amountKopecks: number, refundId: string = Bun.randomUUIDv7()) =>
  reserveRefund(ledger.store, { refundId, accountId: "account-1", paymentId, amountKopecks }, NOW, HOLD_HOUR);
const ended = (paid: ReturnType<typeof paymentEvent>, refundId: string, balanceKopecks: number, status: "SUCCEEDED" | "FAILED", now = NOW) =>
  applyRefundEvent(ledger.store, refundEvent(paid, { refundId, balanceKopecks, status, at: now }), now, HOLD_HOUR);
/** A receipt paid today (Moscow): still frozen at NOW. */
const paidToday = (amountKopecks: number) => {
  const paid = paymentEvent({ paidAt: new Date(msk("2025-03-10T10:00:00")).toISOString(), amountKopecks, commissionKopecks: 0 });
  applyPaymentEvent(ledger.store, paid, NOW);
  return paid;
};

describe("refund hold", () => {
  test("takes the refund out of available at once; the SUCCEEDED event then takes nothing more", () => {
    const paid = fundAccount(ledger.store, "account-1", 10_000, NOW);
    const refundId = Bun.randomUUIDv7();
    expect(reserve(paid.paymentId, 10_000, refundId)).toEqual({ reserved: true });
    expect(balance().availableKopecks).toBe(0);
    expect(ended(paid, refundId, 10_000, "SUCCEEDED")).toBe("refund-taken");
    expect(balance().availableKopecks).toBe(0);
  });

  test("a refund larger than available is refused with the figures, and nothing is taken", () => {
    fundAccount(ledger.store, "account-1", 3_000, NOW);
    expect(thrownBy(() => reserve(Bun.randomUUIDv7(), 5_000))).toEqual(
      new DomainError("REFUND_EXCEEDS_AVAILABLE", { neededKopecks: 5_000, availableKopecks: 3_000, frozenKopecks: 0 }),
    );
    expect(balance().availableKopecks).toBe(3_000);
  });

  test("is unique per refund: a repeat takes nothing more; several refunds of one payment each take their share", () => {
    const paid = fundAccount(ledger.store, "account-1", 10_000, NOW);
    const first = Bun.randomUUIDv7();
    reserve(paid.paymentId, 4_000, first);
    expect(reserve(paid.paymentId, 4_000, first)).toEqual({ reserved: true });
    expect(balance().availableKopecks).toBe(6_000);
    reserve(paid.paymentId, 5_000);
    expect(balance().availableKopecks).toBe(1_000);
  });

  test("a FAILED refund gives its hold back once; a late hold request afterwards takes nothing", () => {
    const paid = fundAccount(ledger.store, "account-1", 10_000, NOW);
    const refundId = Bun.randomUUIDv7();
    reserve(paid.paymentId, 10_000, refundId);
    expect(ended(paid, refundId, 10_000, "FAILED")).toBe("refund-released");
    expect(ended(paid, refundId, 10_000, "FAILED")).toBe("duplicate");
    expect(balance().availableKopecks).toBe(10_000);
    expect(reserve(paid.paymentId, 10_000, refundId)).toEqual({ reserved: false });
    expect(balance().availableKopecks).toBe(10_000);
  });

  test("a FAILED refund that never got its hold leaves a tombstone: the hold request, arriving late, takes nothing", () => {
    // What a balance paused past payments' timeout sees when it resumes.
    const paid = fundAccount(ledger.store, "account-1", 10_000, NOW);
    const refundId = Bun.randomUUIDv7();
    expect(ended(paid, refundId, 10_000, "FAILED")).toBe("refund-released");
    expect(reserve(paid.paymentId, 10_000, refundId)).toEqual({ reserved: false });
    expect(balance().availableKopecks).toBe(10_000);
  });
});

describe("a refund of a receipt still frozen", () => {
  test("is taken from that receipt's own frozen day first, then from available", () => {
    fundAccount(ledger.store, "account-1", 2_000, NOW);
    const paid = paidToday(8_000);
    reserve(paid.paymentId, 6_000);
    expect(balance()).toMatchObject({ availableKopecks: 2_000, frozenKopecks: 2_000 });
    // The next refund of it takes the 2 000 left frozen and 1 000 of available.
    reserve(paid.paymentId, 3_000);
    expect(balance()).toMatchObject({ availableKopecks: 1_000, frozenKopecks: 0 });
    // Tomorrow at the hold hour nothing more is released: the receipt was refunded.
    expect(balance(msk("2025-03-11T12:00:00"))).toMatchObject({ availableKopecks: 1_000, frozenKopecks: 0 });
  });

  test("when the frozen part is not enough and available is short, it is refused and nothing is taken", () => {
    const paid = paidToday(5_000);
    expect(thrownBy(() => reserve(paid.paymentId, 6_000))).toEqual(
      new DomainError("REFUND_EXCEEDS_AVAILABLE", { neededKopecks: 6_000, availableKopecks: 0, frozenKopecks: 5_000 }),
    );
    expect(balance()).toMatchObject({ availableKopecks: 0, frozenKopecks: 5_000 });
  });

  test("a declined refund puts the frozen part back on its day, or in available once that day is released", () => {
    fundAccount(ledger.store, "account-1", 1_000, NOW);
    const paid = paidToday(4_000);
    const today = Bun.randomUUIDv7();
    reserve(paid.paymentId, 5_000, today);
    expect(balance()).toMatchObject({ availableKopecks: 0, frozenKopecks: 0 });
    ended(paid, today, 5_000, "FAILED");
    expect(balance()).toMatchObject({ availableKopecks: 1_000, frozenKopecks: 4_000 });

    const later = Bun.randomUUIDv7();
    reserve(paid.paymentId, 4_000, later);
    const tomorrow = msk("2025-03-11T13:00:00");
    ended(paid, later, 4_000, "FAILED", tomorrow);
    expect(balance(tomorrow)).toMatchObject({ availableKopecks: 5_000, frozenKopecks: 0 });
  });
});

describe("SUCCEEDED event without a hold", () => {
  test("the provider has paid anyway, so the money is taken, from the frozen day first, available even below zero", () => {
    const paid = paidToday(5_000);
    expect(ended(paid, Bun.randomUUIDv7(), 7_000, "SUCCEEDED")).toBe("refund-taken");
    expect(balance()).toMatchObject({ availableKopecks: -2_000, frozenKopecks: 0 });
  });

  test("replayed, it takes the money once", () => {
    const paid = fundAccount(ledger.store, "account-1", 10_000, NOW);
    const refundId = Bun.randomUUIDv7();
    expect(ended(paid, refundId, 10_000, "SUCCEEDED")).toBe("refund-taken");
    expect(ended(paid, refundId, 10_000, "SUCCEEDED")).toBe("duplicate");
    expect(balance().availableKopecks).toBe(0);
  });
});

describe("what does not move money", () => {
  test("a sandbox refund and the REFUNDED payment event: each refund already moved its own share", () => {
    const paid = fundAccount(ledger.store, "account-1", 10_000, NOW);
    expect(ended({ ...paid, isTest: true }, Bun.randomUUIDv7(), 10_000, "SUCCEEDED")).toBe("sandbox");
    expect(applyPaymentEvent(ledger.store, nextEvent(paid, "REFUNDED", new Date(NOW).toISOString()), NOW)).toBe("no-money");
    expect(balance().availableKopecks).toBe(10_000);
  });
});
