import { describe, expect, test } from "bun:test";
import { DomainError } from "@payaccept/contracts";
import { readBalance } from "./balance.ts";
import { applyPaymentEvent, applyPaymentEvents } from "./ledger.ts";
import { createPayout, listPayouts } from "./payouts.ts";
import { applyRefundEvent, reserveRefund } from "./refunds.ts";
import { ENGINES, fundAccount, holdOf, ledgersPerFile, msk, paymentEvent, refundEvent } from "./testing.ts";

/**
 * What replicas racing on one account must never do: spend the same money twice, apply an
 * event twice, hold a refund twice. On PostgreSQL the two stores are two pools, as two hosts
 * would have; every unit serialises on the account's row.
 */
const HOLD_HOUR = 12;
const NOW = msk("2025-03-10T15:00:00");
const ledgers = ledgersPerFile();

describe.each(ENGINES)("replicas on %s", (engine) => {
  test("payouts and refund holds racing for the same money never take more than available", async () => {
    const [a, b] = await ledgers.replicas(engine);
    const paid = await fundAccount(a, "account-1", 10_000, NOW);
    const requests = Array.from({ length: 24 }, (_, i): Promise<unknown> => {
      const store = i % 2 === 0 ? a : b;
      return i % 3 === 0
        ? reserveRefund(store, holdOf(paid, 1_000), NOW, HOLD_HOUR)
        : createPayout(store, { accountId: "account-1", amountKopecks: 1_000 }, NOW, HOLD_HOUR);
    });
    const outcomes = await Promise.allSettled(requests);
    const refused = outcomes.filter((o) => o.status === "rejected");
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(10);
    for (const r of refused) expect((r as PromiseRejectedResult).reason).toBeInstanceOf(DomainError);
    expect(await readBalance(b, "account-1", NOW, HOLD_HOUR)).toMatchObject({ availableKopecks: 0, frozenKopecks: 0 });
    const payouts = (await listPayouts(a, "account-1", 100)).items;
    const holds = outcomes.filter((o, i) => o.status === "fulfilled" && i % 3 === 0);
    expect(payouts.length + holds.length).toBe(10);
  });

  test("one event delivered to both replicas at once is applied once", async () => {
    const [a, b] = await ledgers.replicas(engine);
    const event = paymentEvent({ amountKopecks: 5_000, commissionKopecks: 0 });
    const effects = await Promise.all([a, b, a, b].map((s) => applyPaymentEvent(s, event, NOW)));
    expect(effects.toSorted()).toEqual(["duplicate", "duplicate", "duplicate", "receipt"]);
    expect(await readBalance(a, "account-1", NOW, HOLD_HOUR)).toMatchObject({ availableKopecks: 0, frozenKopecks: 5_000 });
  });

  test("batches sharing accounts on both replicas at once, in opposite orders: no deadlock, each receipt once", async () => {
    const [a, b] = await ledgers.replicas(engine);
    const accounts = Array.from({ length: 6 }, (_, i) => `account-batch-${i}`);
    // Half the accounts exist already, half are new: both paths of the row lock.
    for (const accountId of accounts.slice(0, 3)) await fundAccount(a, accountId, 1_000, NOW);
    const events = accounts.map((accountId) => paymentEvent({ accountId, amountKopecks: 300, commissionKopecks: 0 }));
    const effects = await Promise.all([
      applyPaymentEvents(a, events, NOW),
      applyPaymentEvents(b, events.toReversed(), NOW),
      applyPaymentEvents(a, events.slice(2), NOW),
      applyPaymentEvents(b, events.slice(0, 4).toReversed(), NOW),
    ]);
    expect(effects.flat().filter((e) => e === "receipt")).toHaveLength(6);
    for (const accountId of accounts) expect((await readBalance(b, accountId, NOW, HOLD_HOUR)).frozenKopecks).toBe(300);
  });

  test("one refund held from both replicas at once, then ended on both, takes its amount once", async () => {
    const [a, b] = await ledgers.replicas(engine);
    const paid = await fundAccount(a, "account-1", 10_000, NOW);
    const req = holdOf(paid, 4_000);
    expect(await Promise.all([a, b, a, b].map(async (s) => (await reserveRefund(s, req, NOW, HOLD_HOUR)).reserved))).toEqual(Array(4).fill(true));
    const end = refundEvent(paid, { refundId: req.refundId, balanceKopecks: 4_000, status: "SUCCEEDED", at: NOW });
    const effects = await Promise.all([a, b].map((s) => applyRefundEvent(s, end, NOW, HOLD_HOUR)));
    expect(effects.toSorted()).toEqual(["duplicate", "refund-taken"]);
    expect((await readBalance(b, "account-1", NOW, HOLD_HOUR)).availableKopecks).toBe(6_000);
  });

  test("a due hold bucket released by readers on both replicas at once is released once", async () => {
    const [a, b] = await ledgers.replicas(engine);
    await applyPaymentEvent(a, paymentEvent({ paidAt: new Date(msk("2025-03-10T10:00:00")).toISOString(), amountKopecks: 7_000, commissionKopecks: 0 }), NOW);
    const tomorrow = msk("2025-03-11T12:00:00");
    const reads = await Promise.all([a, b, a, b].map((s) => readBalance(s, "account-1", tomorrow, HOLD_HOUR)));
    expect(reads).toEqual(Array(4).fill({ availableKopecks: 7_000, frozenKopecks: 0, holdHour: HOLD_HOUR }));
  });
});
