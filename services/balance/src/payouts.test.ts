import { describe, expect, test } from "bun:test";
import { DomainError } from "@payaccept/contracts";
import { readBalance } from "./balance.ts";
import { applyPaymentEvent } from "./ledger.ts";
import { createPayout, listPayouts, payOut, settlePendingPayouts } from "./payouts.ts";
import { ENGINES, fundAccount, msk, paymentEvent, ledgerPerTest, thrownBy } from "./testing.ts";

describe.each(ENGINES)("on %s", (engine) => {
  const HOLD_HOUR = 12;
  const NOW = msk("2025-03-10T15:00:00");
  const ledger = ledgerPerTest(engine);

  const available = async (now = NOW) => (await readBalance(ledger.store, "account-1", now, HOLD_HOUR)).availableKopecks;
  const pay = (amountKopecks: number, idempotencyKey?: string, now = NOW) =>
    payOut(ledger.store, { accountId: "account-1", amountKopecks, idempotencyKey }, now, HOLD_HOUR);

  describe("payout", () => {
    test("takes the amount out of available and is PAID", async () => {
      await fundAccount(ledger.store, "account-1", 10_000, NOW);
      const payout = await pay(6_000);
      expect(payout).toMatchObject({ accountId: "account-1", amountKopecks: 6_000, status: "PAID", createdAt: new Date(NOW).toISOString() });
      expect(await available()).toBe(4_000);
    });

    test("may take all of available, not a kopeck more", async () => {
      await fundAccount(ledger.store, "account-1", 10_000, NOW);
      expect(await thrownBy(() => pay(10_001))).toEqual(
        new DomainError("PAYOUT_EXCEEDS_AVAILABLE", { payoutKopecks: 10_001, availableKopecks: 10_000 }),
      );
      expect((await pay(10_000)).status).toBe("PAID");
      expect(await available()).toBe(0);
    });

    test("frozen receipts cannot be paid out until they are released", async () => {
      await applyPaymentEvent(ledger.store, paymentEvent({ paidAt: new Date(NOW).toISOString(), amountKopecks: 5_000, commissionKopecks: 0 }), NOW);
      await expect(pay(5_000)).rejects.toThrow(new DomainError("PAYOUT_EXCEEDS_AVAILABLE", { payoutKopecks: 5_000, availableKopecks: 0 }));
      expect((await pay(5_000, undefined, msk("2025-03-11T12:00:00"))).status).toBe("PAID");
      expect(await available(msk("2025-03-11T12:00:00"))).toBe(0);
    });

    test("racing payouts for the same money: the second one is refused", async () => {
      await fundAccount(ledger.store, "account-1", 10_000, NOW);
      await pay(6_000);
      await expect(pay(6_000)).rejects.toThrow(new DomainError("PAYOUT_EXCEEDS_AVAILABLE", { payoutKopecks: 6_000, availableKopecks: 4_000 }));
      expect(await available()).toBe(4_000);
    });

    test("a retry with the same idempotency key returns the first payout and pays nothing more", async () => {
      await fundAccount(ledger.store, "account-1", 10_000, NOW);
      const first = await pay(3_000, "weekly-1");
      expect(await pay(3_000, "weekly-1")).toEqual(first);
      expect(await available()).toBe(7_000);
      expect((await listPayouts(ledger.store, "account-1", 10)).items).toHaveLength(1);
    });

    test("the same idempotency key with another amount is a conflict", async () => {
      await fundAccount(ledger.store, "account-1", 10_000, NOW);
      await pay(3_000, "weekly-1");
      await expect(pay(4_000, "weekly-1")).rejects.toThrow(new DomainError("PAYOUT_KEY_REUSED", { key: "weekly-1", amountKopecks: 3_000 }));
      expect(await available()).toBe(7_000);
    });

    test("idempotency keys are per account", async () => {
      await fundAccount(ledger.store, "account-1", 10_000, NOW);
      await fundAccount(ledger.store, "account-2", 10_000, NOW);
      await pay(3_000, "k");
      await payOut(ledger.store, { accountId: "account-2", amountKopecks: 3_000, idempotencyKey: "k" }, NOW, HOLD_HOUR);
      expect((await listPayouts(ledger.store, "account-2", 10)).items).toHaveLength(1);
    });

    test("a payout left PENDING by a crash is settled at the next start", async () => {
      await fundAccount(ledger.store, "account-1", 10_000, NOW);
      const pending = await createPayout(ledger.store, { accountId: "account-1", amountKopecks: 2_000 }, NOW, HOLD_HOUR);
      expect(pending.status).toBe("PENDING");
      expect(await settlePendingPayouts(ledger.store, NOW + 1_000)).toBe(1);
      expect((await listPayouts(ledger.store, "account-1", 10)).items).toEqual([expect.objectContaining({ id: pending.id, status: "PAID" })]);
      expect(await available()).toBe(8_000);
    });

    test("the list is the account's payouts, newest first, in pages after a cursor", async () => {
      await fundAccount(ledger.store, "account-1", 10_000, NOW);
      await fundAccount(ledger.store, "account-2", 10_000, NOW);
      const ids = [(await pay(100)).id, (await pay(200)).id, (await pay(300)).id];
      await payOut(ledger.store, { accountId: "account-2", amountKopecks: 999 }, NOW, HOLD_HOUR);
      expect(await listPayouts(ledger.store, "account-1", 10)).toEqual({ items: ids.toReversed().map((id) => expect.objectContaining({ id })), hasMore: false });
      const first = await listPayouts(ledger.store, "account-1", 2);
      expect(first.items.map((p) => p.amountKopecks)).toEqual([300, 200]);
      expect(first.hasMore).toBe(true);
      const next = await listPayouts(ledger.store, "account-1", 2, first.items[1]!.id);
      expect(next).toEqual({ items: [expect.objectContaining({ id: ids[0], amountKopecks: 100 })], hasMore: false });
    });
  });
});
