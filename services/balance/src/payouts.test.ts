import { describe, expect, test } from "bun:test";
import { DomainError } from "@payaccept/contracts";
import { readBalance } from "./balance.ts";
import { applyPaymentEvent } from "./ledger.ts";
import { issueOrder, readyToSend, referenceOf } from "./payment-orders.ts";
import { movePayout, toPayout } from "./payout-states.ts";
import { createPayout, getPayout, listPayouts, recordOutcome } from "./payouts.ts";
import { detailsFor, ENGINES, fundAccount, ledgerPerTest, msk, PAYEE, PAYER, paymentEvent, thrownBy } from "./testing.ts";

const SETTINGS = { payer: PAYER, purposeTemplate: "Выплата {reference} от {date}. Без налога (НДС)" };

describe.each(ENGINES)("on %s", (engine) => {
  const HOLD_HOUR = 12;
  const NOW = msk("2025-03-10T15:00:00");
  const ledger = ledgerPerTest(engine);

  const available = async (now = NOW, accountId = "account-1") => (await readBalance(ledger.store, accountId, now, HOLD_HOUR)).availableKopecks;
  const pay = async (amountKopecks: number, idempotencyKey?: string, now = NOW, accountId = "account-1") =>
    toPayout((await createPayout(ledger.store, { accountId, amountKopecks, idempotencyKey }, now, HOLD_HOUR)).payout);
  const events = async () => (await ledger.store.unpublishedPayoutEvents(100)).map((e) => [e.payoutId, e.status, e.event.payout.status]);
  /** The payout sent as a rail sends it: its payment order made, SENT. */
  const send = (id: string, now = NOW) =>
    ledger.store.tx("account-1", async (t) => {
      const row = (await t.payout(id))!.payout;
      return issueOrder(t, { payout: row, payee: PAYEE }, "exchange-file", SETTINGS, now);
    });
  const move = (id: string, to: Parameters<typeof movePayout>[2], at = NOW, failureReason?: string) =>
    ledger.store.tx("account-1", (t) => movePayout(t, id, to, { at, ...(failureReason ? { failureReason } : {}) }));

  describe("payout", () => {
    test("takes the amount out of available and waits PENDING for its rail, its event in the outbox", async () => {
      await fundAccount(ledger.store, "account-1", 10_000, NOW);
      const payout = await pay(6_000);
      expect(payout).toMatchObject({ accountId: "account-1", amountKopecks: 6_000, status: "PENDING", createdAt: new Date(NOW).toISOString(), scheduled: false, order: null, sentAt: null });
      expect(await available()).toBe(4_000);
      expect(await events()).toEqual([[payout.id, "PENDING", "PENDING"]]);
      expect(await getPayout(ledger.store, "account-1", payout.id)).toEqual(payout);
      expect(await thrownBy(() => getPayout(ledger.store, "account-2", payout.id))).toEqual(new DomainError("PAYOUT_NOT_FOUND"));
    });

    test("may take all of available, not a kopeck more", async () => {
      await fundAccount(ledger.store, "account-1", 10_000, NOW);
      expect(await thrownBy(() => pay(10_001))).toEqual(new DomainError("PAYOUT_EXCEEDS_AVAILABLE", { payoutKopecks: 10_001, availableKopecks: 10_000 }));
      expect((await pay(10_000)).status).toBe("PENDING");
      expect(await available()).toBe(0);
    });

    test("frozen receipts cannot be paid out until they are released", async () => {
      await applyPaymentEvent(ledger.store, paymentEvent({ paidAt: new Date(NOW).toISOString(), amountKopecks: 5_000, commissionKopecks: 0 }), NOW);
      await expect(pay(5_000)).rejects.toThrow(new DomainError("PAYOUT_EXCEEDS_AVAILABLE", { payoutKopecks: 5_000, availableKopecks: 0 }));
      expect((await pay(5_000, undefined, msk("2025-03-11T12:00:00"))).amountKopecks).toBe(5_000);
      expect(await available(msk("2025-03-11T12:00:00"))).toBe(0);
    });

    test("a retry with the same idempotency key returns the first payout and pays nothing more; another amount is a conflict", async () => {
      await fundAccount(ledger.store, "account-1", 10_000, NOW);
      const first = await pay(3_000, "weekly-1");
      expect(await pay(3_000, "weekly-1")).toEqual(first);
      await expect(pay(4_000, "weekly-1")).rejects.toThrow(new DomainError("PAYOUT_KEY_REUSED", { key: "weekly-1", amountKopecks: 3_000 }));
      expect(await available()).toBe(7_000);
      expect((await listPayouts(ledger.store, "account-1", 10)).items).toHaveLength(1);
      expect(await events()).toHaveLength(1);
    });

    test("the list is the account's payouts, newest first, in pages after a cursor", async () => {
      await fundAccount(ledger.store, "account-1", 10_000, NOW);
      await fundAccount(ledger.store, "account-2", 10_000, NOW);
      const ids = [(await pay(100)).id, (await pay(200)).id, (await pay(300)).id];
      await pay(999, undefined, NOW, "account-2");
      expect(await listPayouts(ledger.store, "account-1", 10)).toEqual({ items: ids.toReversed().map((id) => expect.objectContaining({ id })), hasMore: false });
      const first = await listPayouts(ledger.store, "account-1", 2);
      expect(first.items.map((p) => p.amountKopecks)).toEqual([300, 200]);
      expect(first.hasMore).toBe(true);
      expect(await listPayouts(ledger.store, "account-1", 2, first.items[1]!.id)).toEqual({ items: [expect.objectContaining({ id: ids[0], amountKopecks: 100 })], hasMore: false });
    });
  });

  describe("the state machine", () => {
    test("sent: a payment order with a number, the Moscow date, its reference in the purpose, the payee as they are", async () => {
      await fundAccount(ledger.store, "account-1", 10_000, NOW);
      const payout = await pay(2_500);
      const { sent, doc } = (await send(payout.id, msk("2025-03-10T23:30:00")))!;
      expect(toPayout(sent)).toMatchObject({
        status: "SENT",
        sentAt: new Date(msk("2025-03-10T23:30:00")).toISOString(),
        order: { number: 1, date: "2025-03-10", reference: referenceOf(payout.id), rail: "exchange-file", account: "40702810938000000001", bik: "044525225", recipientName: "ООО «Ромашка»" },
      });
      expect(doc).toMatchObject({ number: 1, date: "2025-03-10", amountKopecks: 2_500, payer: PAYER, payee: PAYEE, purpose: `Выплата ${referenceOf(payout.id)} от 10.03.2025. Без налога (НДС)` });
      // Sent once: a second attempt finds it no longer PENDING and makes no second order.
      expect(await send(payout.id)).toBeUndefined();
      expect((await pay(100)).id).not.toBe(payout.id);
      const second = (await send((await listPayouts(ledger.store, "account-1", 1)).items[0]!.id))!;
      expect(second.doc.number).toBe(2);
    });

    test("the open payouts: how many wait to be sent and to be confirmed, each status's oldest since it entered it", async () => {
      expect(await ledger.store.openPayouts()).toEqual({ PENDING: { count: 0, since: null }, SENT: { count: 0, since: null } });
      await fundAccount(ledger.store, "account-1", 10_000, NOW);
      const first = await pay(1_000, undefined, NOW);
      await pay(1_000, undefined, NOW + 60_000);
      const third = await pay(1_000, undefined, NOW + 120_000);
      await send(first.id, NOW + 3_600_000);
      await send(third.id, NOW + 7_200_000);
      expect(await ledger.store.openPayouts()).toEqual({ PENDING: { count: 1, since: NOW + 60_000 }, SENT: { count: 2, since: NOW + 3_600_000 } });
      await move(first.id, "PAID", NOW + 9_000_000);
      expect((await ledger.store.openPayouts()).SENT).toEqual({ count: 1, since: NOW + 7_200_000 });
    });

    test("PAID after SENT, then RETURNED: the amount is back on the balance exactly once, every step an event", async () => {
      await fundAccount(ledger.store, "account-1", 10_000, NOW);
      const payout = await pay(6_000);
      await send(payout.id);
      expect((await move(payout.id, "PAID"))?.payout.status).toBe("PAID");
      expect(await move(payout.id, "PAID")).toBeUndefined();
      expect(await available()).toBe(4_000);
      const returned = await move(payout.id, "RETURNED", NOW + 1_000, "Счёт получателя закрыт");
      expect(toPayout(returned!)).toMatchObject({ status: "RETURNED", returnedAt: new Date(NOW + 1_000).toISOString(), failureReason: "Счёт получателя закрыт" });
      expect(await available()).toBe(10_000);
      // The same return again, or a refusal after it: nothing more comes back.
      expect(await move(payout.id, "RETURNED")).toBeUndefined();
      expect(await move(payout.id, "FAILED")).toBeUndefined();
      expect(await available()).toBe(10_000);
      expect(await events()).toEqual([
        [payout.id, "PENDING", "PENDING"],
        [payout.id, "SENT", "SENT"],
        [payout.id, "PAID", "PAID"],
        [payout.id, "RETURNED", "RETURNED"],
      ]);
    });

    test("FAILED before or after it was sent gives the amount back once; a PAID payout cannot fail", async () => {
      await fundAccount(ledger.store, "account-1", 10_000, NOW);
      const [a, b, c] = [await pay(1_000), await pay(2_000), await pay(3_000)];
      expect((await move(a.id, "FAILED", NOW, "Реквизиты не приняты"))?.payout.failureReason).toBe("Реквизиты не приняты");
      await send(b.id);
      expect((await move(b.id, "FAILED"))?.payout.status).toBe("FAILED");
      await send(c.id);
      await move(c.id, "PAID");
      expect(await move(c.id, "FAILED")).toBeUndefined();
      expect(await move(a.id, "FAILED")).toBeUndefined();
      expect(await available()).toBe(10_000 - 3_000);
      // A PENDING payout is never PAID or RETURNED without a payment order.
      const d = await pay(500);
      expect(await move(d.id, "PAID")).toBeUndefined();
      expect(await move(d.id, "RETURNED")).toBeUndefined();
    });

    test("the operator's outcome moves it as a statement line would; the same again is answered, another refused", async () => {
      await fundAccount(ledger.store, "account-1", 10_000, NOW);
      const payout = await pay(4_000);
      await send(payout.id);
      expect(await recordOutcome(ledger.store, { payoutId: payout.id, status: "FAILED", reason: "Банк отклонил файл" }, NOW)).toMatchObject({ status: "FAILED", failureReason: "Банк отклонил файл" });
      expect((await recordOutcome(ledger.store, { payoutId: payout.id, status: "FAILED" }, NOW)).status).toBe("FAILED");
      expect(await thrownBy(() => recordOutcome(ledger.store, { payoutId: payout.id, status: "PAID" }, NOW))).toEqual(new DomainError("PAYOUT_STATUS_CONFLICT", { status: "FAILED", target: "PAID" }));
      expect(await thrownBy(() => recordOutcome(ledger.store, { payoutId: crypto.randomUUID(), status: "PAID" }, NOW))).toEqual(new DomainError("PAYOUT_NOT_FOUND"));
      expect(await available()).toBe(10_000);
    });

    test("a payout sent through a bank's API takes no PAID or FAILED from the operator: the bank's answer decides it", async () => {
      await fundAccount(ledger.store, "account-1", 10_000, NOW);
      const payout = await pay(4_000);
      await ledger.store.tx("account-1", async (t) => issueOrder(t, { payout: (await t.payout(payout.id))!.payout, payee: PAYEE }, "sber", SETTINGS, NOW));
      for (const status of ["FAILED", "PAID"] as const)
        expect(await thrownBy(() => recordOutcome(ledger.store, { payoutId: payout.id, status }, NOW))).toEqual(new DomainError("PAYOUT_OUTCOME_BY_BANK", { rail: "sber" }));
      expect((await getPayout(ledger.store, "account-1", payout.id)).status).toBe("SENT");
      expect(await available()).toBe(6_000);
    });

    test("only payouts whose account has details and no hold are ready to send; the others wait, saying why and until when", async () => {
      for (const id of ["account-1", "account-2", "account-3"]) await fundAccount(ledger.store, id, 10_000, NOW);
      const [a, b, c] = [await pay(100), await pay(200, undefined, NOW, "account-2"), await pay(300, undefined, NOW, "account-3")];
      const details = detailsFor({ "account-1": { details: PAYEE }, "account-2": { details: PAYEE, heldUntil: NOW + 3_600_000 }, "account-3": { details: PAYEE, heldUntil: NOW - 1 } }, NOW);
      const { ready, waiting } = await readyToSend(ledger.store, details, 10);
      expect(ready.map((r) => r.payout.id)).toEqual([a.id, c.id]);
      expect(waiting).toEqual([{ payoutId: b.id, accountId: "account-2", amountKopecks: 200, reason: "held", until: NOW + 3_600_000 }]);
      const none = await readyToSend(ledger.store, detailsFor({}), 10);
      expect(none.waiting.map((w) => w.reason)).toEqual(["noDetails", "noDetails", "noDetails"]);
    });
  });
});
