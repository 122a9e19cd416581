import { describe, expect, test } from "bun:test";
import { DomainError } from "@payaccept/contracts";
import { readBalance } from "./balance.ts";
import { applyPaymentEvent } from "./ledger.ts";
import { releaseRefund, reserveRefund } from "./refunds.ts";
import { fundAccount, msk, nextEvent, paymentEvent, ledgerPerTest, thrownBy } from "./testing.ts";

const HOLD_HOUR = 12;
const NOW = msk("2025-03-10T15:00:00");
const ledger = ledgerPerTest();

const balance = (now = NOW) => readBalance(ledger.store, "account-1", now, HOLD_HOUR);
const reserve = (paymentId: string, amountKopecks: number) =>
  reserveRefund(ledger.store, { accountId: "account-1", paymentId, amountKopecks }, NOW, HOLD_HOUR);
const release = (paymentId: string) => releaseRefund(ledger.store, { accountId: "account-1", paymentId }, NOW);
const refunded = (paid: ReturnType<typeof paymentEvent>) =>
  applyPaymentEvent(ledger.store, nextEvent(paid, "REFUNDED", new Date(NOW).toISOString()), NOW);

describe("refund reserve", () => {
  test("takes the refund out of available at once; the REFUNDED event then takes nothing more", () => {
    const paid = fundAccount(ledger.store, "account-1", 10_000, NOW);
    expect(reserve(paid.paymentId, 10_000)).toEqual({ reserved: true });
    expect(balance().availableKopecks).toBe(0);
    expect(refunded(paid)).toBe("refund");
    expect(balance().availableKopecks).toBe(0);
  });

  test("a refund larger than available is refused with the figures, and nothing is taken", () => {
    fundAccount(ledger.store, "account-1", 3_000, NOW);
    expect(thrownBy(() => reserve(Bun.randomUUIDv7(), 5_000))).toEqual(
      new DomainError("CONFLICT", "refund of 5000 kopecks exceeds the available balance 3000 kopecks"),
    );
    expect(balance().availableKopecks).toBe(3_000);
  });

  test("frozen money does not cover a refund: only available does", () => {
    const paid = paymentEvent({ paidAt: new Date(NOW).toISOString(), amountKopecks: 8_000, commissionKopecks: 0 });
    applyPaymentEvent(ledger.store, paid, NOW);
    expect(() => reserve(paid.paymentId, 8_000)).toThrow("refund of 8000 kopecks exceeds the available balance 0 kopecks");
    expect(balance()).toMatchObject({ availableKopecks: 0, frozenKopecks: 8_000 });
  });

  test("is unique per payment: a second reserve for the same payment takes nothing more", () => {
    const paid = fundAccount(ledger.store, "account-1", 10_000, NOW);
    reserve(paid.paymentId, 4_000);
    expect(reserve(paid.paymentId, 4_000)).toEqual({ reserved: true });
    expect(balance().availableKopecks).toBe(6_000);
  });

  test("release gives the money back once; a second release finds nothing", () => {
    const paid = fundAccount(ledger.store, "account-1", 10_000, NOW);
    reserve(paid.paymentId, 10_000);
    expect(release(paid.paymentId)).toEqual({ released: true });
    expect(balance().availableKopecks).toBe(10_000);
    expect(release(paid.paymentId)).toEqual({ released: false });
    expect(balance().availableKopecks).toBe(10_000);
  });

  test("after a release the payment can be reserved again", () => {
    const paid = fundAccount(ledger.store, "account-1", 10_000, NOW);
    reserve(paid.paymentId, 10_000);
    release(paid.paymentId);
    reserve(paid.paymentId, 10_000);
    expect(balance().availableKopecks).toBe(0);
  });

  test("a refund that happened cannot be released", () => {
    const paid = fundAccount(ledger.store, "account-1", 10_000, NOW);
    reserve(paid.paymentId, 10_000);
    refunded(paid);
    expect(release(paid.paymentId)).toEqual({ released: false });
    expect(balance().availableKopecks).toBe(0);
  });

  test("another account cannot release the reserve", () => {
    const paid = fundAccount(ledger.store, "account-1", 10_000, NOW);
    reserve(paid.paymentId, 10_000);
    expect(releaseRefund(ledger.store, { accountId: "account-2", paymentId: paid.paymentId }, NOW)).toEqual({ released: false });
    expect(balance().availableKopecks).toBe(0);
  });

  test("a reserve after the refund was already applied takes nothing", () => {
    const paid = fundAccount(ledger.store, "account-1", 10_000, NOW);
    refunded(paid);
    expect(reserve(paid.paymentId, 10_000)).toEqual({ reserved: true });
    expect(balance().availableKopecks).toBe(0);
  });
});

describe("REFUNDED event", () => {
  test("takes back amount − commission", () => {
    fundAccount(ledger.store, "account-1", 20_000, NOW);
    const paid = paymentEvent({ paidAt: new Date(NOW - 3 * 86_400_000).toISOString(), amountKopecks: 10_000, commissionKopecks: 250 });
    applyPaymentEvent(ledger.store, paid, NOW);
    expect(balance().availableKopecks).toBe(29_750);
    refunded(paid);
    expect(balance().availableKopecks).toBe(20_000);
  });

  test("replayed, it takes the money once", () => {
    const paid = fundAccount(ledger.store, "account-1", 10_000, NOW);
    expect(refunded(paid)).toBe("refund");
    expect(refunded(paid)).toBe("duplicate");
    expect(balance().availableKopecks).toBe(0);
  });

  test("the event's figure wins over a reserve made for another amount", () => {
    const paid = fundAccount(ledger.store, "account-1", 10_000, NOW);
    reserve(paid.paymentId, 7_000);
    refunded(paid);
    expect(balance().availableKopecks).toBe(0);
  });

  test("without a reserve the provider has paid anyway, so available may go below zero", () => {
    const paid = paymentEvent({ paidAt: new Date(NOW).toISOString(), amountKopecks: 5_000, commissionKopecks: 0 });
    applyPaymentEvent(ledger.store, paid, NOW);
    refunded(paid);
    expect(balance()).toMatchObject({ availableKopecks: -5_000, frozenKopecks: 5_000 });
    expect(balance(msk("2025-03-11T12:00:00"))).toMatchObject({ availableKopecks: 0, frozenKopecks: 0 });
  });

  test("a sandbox REFUNDED frees a reserve made for that payment by mistake", () => {
    fundAccount(ledger.store, "account-1", 10_000, NOW);
    const sandbox = paymentEvent({ isTest: true, amountKopecks: 3_000, commissionKopecks: 0 });
    reserve(sandbox.paymentId, 3_000);
    expect(refunded(sandbox)).toBe("sandbox");
    expect(balance().availableKopecks).toBe(10_000);
  });
});
