import { describe, expect, test } from "bun:test";
import { DomainError } from "@payaccept/contracts";
import { readBalance } from "./balance.ts";
import { applyPaymentEvent } from "./ledger.ts";
import { createPayout, listPayouts, payOut, settlePendingPayouts } from "./payouts.ts";
import { fundAccount, msk, paymentEvent, ledgerPerTest, thrownBy } from "./testing.ts";

const HOLD_HOUR = 12;
const NOW = msk("2025-03-10T15:00:00");
const ledger = ledgerPerTest();

const available = (now = NOW) => readBalance(ledger.store, "account-1", now, HOLD_HOUR).availableKopecks;
const pay = (amountKopecks: number, idempotencyKey?: string, now = NOW) =>
  payOut(ledger.store, { accountId: "account-1", amountKopecks, idempotencyKey }, now, HOLD_HOUR);

describe("payout", () => {
  test("takes the amount out of available and is PAID", () => {
    fundAccount(ledger.store, "account-1", 10_000, NOW);
    const payout = pay(6_000);
    expect(payout).toMatchObject({ accountId: "account-1", amountKopecks: 6_000, status: "PAID", createdAt: new Date(NOW).toISOString() });
    expect(available()).toBe(4_000);
  });

  test("may take all of available, not a kopeck more", () => {
    fundAccount(ledger.store, "account-1", 10_000, NOW);
    expect(thrownBy(() => pay(10_001))).toEqual(
      new DomainError("PAYOUT_EXCEEDS_AVAILABLE", { payoutKopecks: 10_001, availableKopecks: 10_000 }),
    );
    expect(pay(10_000).status).toBe("PAID");
    expect(available()).toBe(0);
  });

  test("frozen receipts cannot be paid out until they are released", () => {
    applyPaymentEvent(ledger.store, paymentEvent({ paidAt: new Date(NOW).toISOString(), amountKopecks: 5_000, commissionKopecks: 0 }), NOW);
    expect(() => pay(5_000)).toThrow(new DomainError("PAYOUT_EXCEEDS_AVAILABLE", { payoutKopecks: 5_000, availableKopecks: 0 }));
    expect(pay(5_000, undefined, msk("2025-03-11T12:00:00")).status).toBe("PAID");
    expect(available(msk("2025-03-11T12:00:00"))).toBe(0);
  });

  test("racing payouts for the same money: the second one is refused", () => {
    fundAccount(ledger.store, "account-1", 10_000, NOW);
    pay(6_000);
    expect(() => pay(6_000)).toThrow(new DomainError("PAYOUT_EXCEEDS_AVAILABLE", { payoutKopecks: 6_000, availableKopecks: 4_000 }));
    expect(available()).toBe(4_000);
  });

  test("a retry with the same idempotency key returns the first payout and pays nothing more", () => {
    fundAccount(ledger.store, "account-1", 10_000, NOW);
    const first = pay(3_000, "weekly-1");
    expect(pay(3_000, "weekly-1")).toEqual(first);
    expect(available()).toBe(7_000);
    expect(listPayouts(ledger.store, "account-1", 10).items).toHaveLength(1);
  });

  test("the same idempotency key with another amount is a conflict", () => {
    fundAccount(ledger.store, "account-1", 10_000, NOW);
    pay(3_000, "weekly-1");
    expect(() => pay(4_000, "weekly-1")).toThrow(new DomainError("PAYOUT_KEY_REUSED", { key: "weekly-1", amountKopecks: 3_000 }));
    expect(available()).toBe(7_000);
  });

  test("idempotency keys are per account", () => {
    fundAccount(ledger.store, "account-1", 10_000, NOW);
    fundAccount(ledger.store, "account-2", 10_000, NOW);
    pay(3_000, "k");
    payOut(ledger.store, { accountId: "account-2", amountKopecks: 3_000, idempotencyKey: "k" }, NOW, HOLD_HOUR);
    expect(listPayouts(ledger.store, "account-2", 10).items).toHaveLength(1);
  });

  test("a payout left PENDING by a crash is settled at the next start", () => {
    fundAccount(ledger.store, "account-1", 10_000, NOW);
    const pending = createPayout(ledger.store, { accountId: "account-1", amountKopecks: 2_000 }, NOW, HOLD_HOUR);
    expect(pending.status).toBe("PENDING");
    expect(settlePendingPayouts(ledger.store, NOW + 1_000)).toBe(1);
    expect(listPayouts(ledger.store, "account-1", 10).items).toEqual([expect.objectContaining({ id: pending.id, status: "PAID" })]);
    expect(available()).toBe(8_000);
  });

  test("the list is the account's payouts, newest first, in pages after a cursor", () => {
    fundAccount(ledger.store, "account-1", 10_000, NOW);
    fundAccount(ledger.store, "account-2", 10_000, NOW);
    const ids = [pay(100).id, pay(200).id, pay(300).id];
    payOut(ledger.store, { accountId: "account-2", amountKopecks: 999 }, NOW, HOLD_HOUR);
    expect(listPayouts(ledger.store, "account-1", 10)).toEqual({ items: ids.toReversed().map((id) => expect.objectContaining({ id })), hasMore: false });
    const first = listPayouts(ledger.store, "account-1", 2);
    expect(first.items.map((p) => p.amountKopecks)).toEqual([300, 200]);
    expect(first.hasMore).toBe(true);
    const next = listPayouts(ledger.store, "account-1", 2, first.items[1]!.id);
    expect(next).toEqual({ items: [expect.objectContaining({ id: ids[0], amountKopecks: 100 })], hasMore: false });
  });
});
