import { afterEach, describe, expect, test } from "bun:test";
import { DomainError, IDEMPOTENCY_TTL_MS, PaymentEvent, RefundEvent } from "@payaccept/contracts";
import { ENGINES, storesPerFile, type Engine } from "../../../../tests/harness/engines.ts";
import { newPayment } from "../../test-support/new-payment.ts";
import { newSavedMethod, savedOnPayment } from "../domain/saved-methods.ts";
import type { PaymentTrigger } from "../domain/state-machine.ts";
import { openPaymentsStore } from "./open-payments-store.ts";
import { OrderIdTaken, type KeyedCreate, type CommittedTransition, type EndedRefund, type OutboxRow, type PaymentsStore, type TransitionOptions } from "./payments-store.ts";

const stores = storesPerFile();
const opened: PaymentsStore[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});

type Opened = PaymentsStore & { committed: CommittedTransition[]; ended: EndedRefund[] };

/** A fresh store on `engine`; with `replicas`, a second store on the same rows (on SQLite, the same store). */
async function open(engine: Engine): Promise<Opened> {
  const committed: CommittedTransition[] = [];
  const ended: EndedRefund[] = [];
  const store = await openPaymentsStore(await stores.next(engine, "payments.db"), { onCommitted: (t) => committed.push(t), onEnded: (e) => ended.push(e) });
  opened.push(store);
  return { ...store, committed, ended };
}

const TTL = 60_000;
const input = newPayment;

/** Every row the relay would publish, marking none. */
async function unpublished(s: PaymentsStore): Promise<OutboxRow[]> {
  return s.outbox.round(1000, async () => []);
}

describe.each(ENGINES)("payments store (%s)", (engine) => {
  test("numbers each shop's payments 1, 2, 3…, also for the creates of one turn, and keeps the CREATED deadline", async () => {
    const s = await open(engine);
    const rows = await Promise.all([input("A", "1"), input("B", "1"), input("A", "2"), input("A", "3")].map((i) => s.payments.insert(i, 1000, TTL)));
    expect(rows.map((r) => [r.shopId, r.seq])).toEqual([["A", 1], ["B", 1], ["A", 2], ["A", 3]]);
    expect(rows[0]).toMatchObject({ status: "CREATED", createdAt: 1000, expiresAt: 1000 + TTL, metadata: { a: 1 }, methodFixed: false, isTest: false });
    const ids = rows.filter((r) => r.shopId === "A").map((r) => r.id);
    expect([...ids].sort()).toEqual(ids);
    expect(await s.payments.byOrderId("A", "2")).toEqual(rows[2]!);
  });

  test("the row a create hands back is the row stored, every column of it: a buyer's payment, a hold, a charge of a saved method", async () => {
    const s = await open(engine);
    const receipt = { customer: { email: "b@example.com" }, taxation: "usn_income", items: [{ name: "Кофе", quantity: 1, priceKopecks: 10_000, vat: "vat22", paymentSubject: "commodity", paymentMethod: "full_payment" }] };
    const rows = await Promise.all([
      input("A", "plain", { description: "Beans", email: "b@example.com", successUrl: "https://shop.example/ok", metadata: { cart: [1, 2], note: "без сахара" }, receipt: receipt as never, createCallId: "call-1" }),
      input("A", "hold", { method: "CARD", hold: true, heldKopecks: 10_000, customerId: "user-7", saveMethod: true, traceContext: { traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" } }),
      input("A", "charge", { method: "CARD", merchantInitiated: true, savedMethodId: "m-1", paymentMethod: { kind: "CARD", card: { brand: "VISA", last4: "4242", expMonth: 12, expYear: 2030 } } as never }),
    ].map((i) => s.payments.insert(i, 1000, TTL)));
    for (const row of rows) expect(await s.payments.byId(row.id)).toEqual(row);
  });

  test("a taken orderId is refused without using up a seq, also when its twin is in the same turn", async () => {
    const s = await open(engine);
    await s.payments.insert(input("A", "dup"), 1000, TTL);
    const outcomes = await Promise.allSettled([s.payments.insert(input("A", "dup"), 1001, TTL), s.payments.insert(input("A", "x"), 1001, TTL), s.payments.insert(input("A", "x"), 1001, TTL)]);
    expect(outcomes.map((o) => (o.status === "fulfilled" ? o.value.seq : (o.reason as Error).constructor.name))).toEqual(["OrderIdTaken", 2, "OrderIdTaken"]);
    expect(outcomes[0]!.status === "rejected" && outcomes[0]!.reason instanceof OrderIdTaken).toBe(true);
    expect((await s.payments.insert(input("A", "next"), 1002, TTL)).seq).toBe(3);
  });

  describe("Idempotency-Keys of creates", () => {
    const keyed = (key: string, fingerprint = "f".repeat(64), callId: string | null = null): KeyedCreate => ({ key, fingerprint, callId, status: 201, answer: (row) => `{"id":"${row.id}"}` });

    test("the payment and its key's answer commit together; a twin in the same turn and a later retry meet the key's row, and nothing more is made", async () => {
      const s = await open(engine);
      const [first, twin] = await Promise.all([s.payments.insertKeyed(input("A", "1"), 1000, TTL, keyed("k", "f".repeat(64), "call-1")), s.payments.insertKeyed(input("A", "1"), 1000, TTL, keyed("k"))]);
      if (first!.kind !== "created") throw new Error("the first create made nothing");
      expect(first!.body).toBe(`{"id":"${first!.row.id}"}`);
      const row = { shopId: "A", key: "k", fingerprint: "f".repeat(64), status: 201, body: first!.body, callId: "call-1", createdAt: 1000 };
      expect(twin).toEqual({ kind: "existing", key: row });
      // Another shop's key of the same name is its own; the first shop's payment changed status, its key's answer did not.
      await s.payments.transition(first!.row.id, "cancel", 2000);
      expect(await s.payments.insertKeyed(input("A", "2"), 3000, TTL, keyed("k", "0".repeat(64)))).toEqual({ kind: "existing", key: row });
      expect((await s.payments.insertKeyed(input("B", "1"), 3000, TTL, keyed("k"))).kind).toBe("created");
      expect((await s.payments.insert(input("A", "3"), 3000, TTL)).seq).toBe(2);
    });

    test("a taken orderId records nothing; a key past IDEMPOTENCY_TTL_MS counts as absent, is replaced, and is swept", async () => {
      const s = await open(engine);
      await s.payments.insert(input("A", "taken"), 1000, TTL);
      await expect(s.payments.insertKeyed(input("A", "taken"), 1000, TTL, keyed("k"))).rejects.toBeInstanceOf(OrderIdTaken);
      expect(await s.keys.put({ shopId: "A", key: "k", fingerprint: "a".repeat(64), status: null, body: null, callId: null, createdAt: 1000 })).toBeUndefined();
      const marked = await s.keys.put({ shopId: "A", key: "k", fingerprint: "b".repeat(64), status: 409, body: "{}", callId: null, createdAt: 2000 });
      expect(marked).toMatchObject({ fingerprint: "a".repeat(64), status: null, createdAt: 1000 });
      const later = 1000 + IDEMPOTENCY_TTL_MS;
      const made = await s.payments.insertKeyed(input("A", "new"), later, TTL, keyed("k"));
      expect(made.kind).toBe("created");
      await s.keys.put({ shopId: "A", key: "old", fingerprint: "a".repeat(64), status: null, body: null, callId: null, createdAt: 1500 });
      expect(await s.keys.sweep(later - IDEMPOTENCY_TTL_MS + 1000, 100)).toBe(1);
      expect(await s.keys.put({ shopId: "A", key: "k", fingerprint: "c".repeat(64), status: null, body: null, callId: null, createdAt: later + 1 })).toMatchObject({ fingerprint: "f".repeat(64), status: 201 });
    });
  });

  test("a move into a final status writes its event in the same transaction and is announced once", async () => {
    const s = await open(engine);
    const p = await s.payments.insert(input("A", "1"), 1000, TTL);
    const r = (await s.payments.transition(p.id, "cancel", 2000, { requestId: "req-1" }))!;
    expect(r.decision).toEqual({ kind: "move", from: "CREATED", to: "CANCELED" });
    expect(r.row).toMatchObject({ status: "CANCELED", updatedAt: 2000, expiresAt: null });
    expect((await s.payments.transition(p.id, "cancel", 3000))!.decision.kind).toBe("already");
    expect((await s.payments.transition(p.id, "pay", 3000))!.decision.kind).toBe("refused");
    const rows = await unpublished(s);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ eventId: `${p.id}:CANCELED`, status: "CANCELED", requestId: "req-1" });
    expect(PaymentEvent.parse(JSON.parse(rows[0]!.payload))).toMatchObject({ paymentId: p.id, status: "CANCELED", previousStatus: "CREATED", metadata: { a: 1 } });
    expect(s.committed.map((c) => [c.from, c.to, c.trigger])).toEqual([["CREATED", "CANCELED", "cancel"]]);
    expect(await s.payments.finalEvents(p.id)).toEqual([{ status: "CANCELED", at: 2000 }]);
    expect(await s.payments.transition(Bun.randomUUIDv7(), "cancel", 1)).toBeUndefined();
  });

  test("two transitions of one payment at once: one moves, the other sees the result", async () => {
    const s = await open(engine);
    const p = await s.payments.insert(input("A", "1"), 1000, TTL);
    const [a, b] = await Promise.all([s.payments.transition(p.id, "cancel", 2000), s.payments.transition(p.id, "expire", 2000)]);
    expect([a!.decision.kind, b!.decision.kind].sort()).toEqual(["move", "refused"]);
    expect(await unpublished(s)).toHaveLength(1);
  });

  test("a batch of transitions leaves exactly the rows, events and rollups that the same transitions one at a time leave, and hands back the rows stored", async () => {
    // The same payments in two stores; the transitions awaited one by one in the first, asked for in
    // one turn in the second (one batch, one transaction: on PostgreSQL one UPDATE for all the rows).
    const at = Date.parse("2026-03-01T09:00:00Z");
    const orders = [["A", "a1"], ["A", "a2"], ["B", "b1"], ["B", "b2"], ["A", "twice"], ["B", "pending"], ["A", "saves"]] as const;
    const card = { method: "CARD" as const, card: { brand: "VISA" as const, last4: "4242", expMonth: 2, expYear: 2027 }, sbp: null };
    async function prepared() {
      const s = await open(engine);
      const ids = new Map<string, string>();
      for (const [i, [shop, order]] of orders.entries()) ids.set(order, (await s.payments.insert(input(shop, order, { amountKopecks: 1000 + i }), at + i, TTL)).id);
      for (const order of ["pending", "saves"]) await s.payments.transition(ids.get(order)!, "start", at + 100, { patch: () => ({ method: "CARD" }) });
      const saves = (await s.payments.byId(ids.get("saves")!))!;
      const saved = newSavedMethod(saves, card, "tok-1", at + 200);
      ids.set("method", saved.id);
      const steps: [string, PaymentTrigger, TransitionOptions?][] = [
        ["b2", "cancel", { requestId: "req-b2" }],
        ["a1", "cancel"],
        ["twice", "start", { patch: () => ({ method: "SBP", providerSessionId: "s-1", sbpQrPayload: "qr", expiresAt: at + 5000 }) }],
        ["b1", "cancel"],
        ["pending", "cancel"], // refused: the buyer is paying
        ["twice", "decline", { patch: () => ({ failureCode: "PROVIDER_REFUSED", failureParams: { z: 1, a: "x" }, sbpQrPayload: undefined }) }],
        ["saves", "payInTime", { savedMethod: saved, patch: () => ({ paidAt: at + 200, ...savedOnPayment(saved) }) }],
        ["a2", "cancel"],
        ["a1", "cancel"], // a repeat of the move made earlier in the batch
        ["unknown", "cancel"],
      ];
      const run = (id: string, trigger: PaymentTrigger, opts?: TransitionOptions) => s.payments.transition(ids.get(id) ?? Bun.randomUUIDv7(), trigger, at + 200, opts);
      return { s, ids, steps, run };
    }
    const one = await prepared();
    const oneByOne = [];
    for (const step of one.steps) oneByOne.push(await one.run(...step));
    const batched = await prepared();
    const inBatch = await Promise.all(batched.steps.map((step) => batched.run(...step)));

    expect(inBatch.map((r) => r?.decision)).toEqual(oneByOne.map((r) => r?.decision));
    expect(inBatch.map((r) => r?.decision.kind)).toEqual(["move", "move", "move", "move", "refused", "move", "move", "move", "already", undefined]);
    // The row a transition hands back is the row a read finds (the batch computes it rather than reading it back).
    for (const { s, ids, steps } of [one, batched]) {
      const results = s === one.s ? oneByOne : inBatch;
      const last = new Map(steps.map(([order], i) => [order, results[i]]));
      for (const [order, result] of last) if (result) expect(result.row).toEqual((await s.payments.byId(ids.get(order)!))!);
    }
    /** Everything the transitions leave, with each store's ids replaced by the orders' names. */
    async function state({ s, ids }: Awaited<ReturnType<typeof prepared>>) {
      const day = "2026-03-01";
      const statuses = ["CREATED", "PENDING", "CANCELED", "FAILED", "SUCCESS"] as const;
      const left = {
        rows: await Promise.all(orders.map(([shop, order]) => s.payments.byOrderId(shop, order))),
        // In payment id order (creation order), which both keep; the seqs differ (a batch writes in id order).
        events: (await unpublished(s)).map(({ seq: _, ...row }) => row).sort((a, b) => (a.eventId < b.eventId ? -1 : 1)),
        daily: [await s.payments.dailyStats(["A"], day, day), await s.payments.dailyStats(["B"], day, day)],
        counters: await Promise.all(["A", "B"].flatMap((shop) => statuses.map(async (st) => [shop, st, (await s.payments.list(shop, { page: 1, limit: 1, status: [st] } as never)).total]))),
        method: await s.methods.byProviderId("tok-1"),
        committed: s.committed.map((c) => ({ ...c, row: c.row.orderId })).sort((a, b) => (a.row + a.to < b.row + b.to ? -1 : 1)),
      };
      let text = JSON.stringify(left);
      for (const [name, id] of ids) text = text.replaceAll(id, name);
      return JSON.parse(text);
    }
    const left = await state(batched);
    expect(left).toEqual(await state(one));
    expect(left.events.map((e: OutboxRow) => e.eventId)).toEqual(["a1:CANCELED", "a2:CANCELED", "b1:CANCELED", "b2:CANCELED", "twice:FAILED", "saves:SUCCESS"]);
    expect(left.rows[4]).toMatchObject({ status: "FAILED", method: "SBP", providerSessionId: "s-1", sbpQrPayload: "qr", failureParams: { z: 1, a: "x" }, expiresAt: null });
  });

  test("lists, counters, the daily rollup and the dashboard's browse agree after inserts and transitions", async () => {
    const s = await open(engine);
    const at = Date.parse("2026-03-01T09:00:00Z");
    const rows = await Promise.all(Array.from({ length: 30 }, (_, i) => s.payments.insert(input("A", String(i), { amountKopecks: 1000 + i }), at + i, TTL)));
    for (const r of rows.slice(0, 10)) await s.payments.transition(r.id, "cancel", at + 100);
    const page = await s.payments.list("A", { page: 2, limit: 7 } as never);
    expect(page.total).toBe(30);
    expect(page.items.map((r) => r.seq)).toEqual([8, 9, 10, 11, 12, 13, 14]);
    const canceled = await s.payments.list("A", { page: 1, limit: 4, status: ["CANCELED"] } as never);
    expect(canceled.total).toBe(10);
    expect(canceled.items.map((r) => r.seq)).toEqual([1, 2, 3, 4]);
    const browse = await s.payments.browse("A", { fromDay: "2026-03-01", toDay: "2026-03-01", statuses: ["CREATED"], sort: "amount_desc", page: 1, limit: 3 });
    const createdSum = rows.slice(10).reduce((sum, r) => sum + r.amountKopecks, 0);
    expect(browse.byStatus).toEqual([{ status: "CREATED", count: 20, sumKopecks: createdSum }]);
    expect(browse.items.map((r) => r.amountKopecks)).toEqual([1029, 1028, 1027]);
    expect(await s.payments.dailyStats(["A"], "2026-03-01", "2026-03-01")).toEqual([
      { day: "2026-03-01", method: null, status: "CANCELED", count: 10, sumKopecks: rows.slice(0, 10).reduce((sum, r) => sum + r.amountKopecks, 0) },
      { day: "2026-03-01", method: null, status: "CREATED", count: 20, sumKopecks: createdSum },
    ]);
    const exported = await s.payments.exportPage("A", { after: { createdAt: rows[27]!.createdAt, id: rows[27]!.id }, limit: 10 });
    expect(exported.map((r) => r.seq)).toEqual([29, 30]);
    expect(await s.payments.dueForExpiry(at + TTL + 100, 100)).toHaveLength(20);
  });

  test("more lists and browses at once than the pool has connections all answer (a read's statements stay on its own connection)", async () => {
    const s = await open(engine);
    await Promise.all(Array.from({ length: 20 }, (_, i) => s.payments.insert(input("A", String(i)), 1000 + i, TTL)));
    const reads = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        i % 2 ? s.payments.list("A", { page: 2, limit: 5 } as never) : s.payments.browse("A", { statuses: ["CREATED"], sort: "created_desc", page: 1, limit: 5 }),
      ),
    );
    expect(reads.map((r) => ("total" in r ? r.total : r.byStatus[0]!.count))).toEqual(reads.map(() => 20));
  });

  test("refunds: concurrent opens never promise more than the amount; the last end makes the payment REFUNDED with both events", async () => {
    const s = await open(engine);
    const created = await s.payments.insert(input("A", "r", { method: "SBP" }), 1000, TTL);
    await s.payments.transition(created.id, "start", 1100);
    const paid = (await s.payments.transition(created.id, "pay", 1200, { patch: () => ({ paidAt: 1200 }) }))!.row;
    const opens = await Promise.allSettled([4000, 4000, 4000].map((amountKopecks) => s.refunds.open(paid, { amountKopecks }, 2000, 10_000)));
    const ok = opens.filter((o) => o.status === "fulfilled").map((o) => (o as PromiseFulfilledResult<{ refund: { id: string } }>).value.refund.id);
    expect(ok).toHaveLength(2);
    expect(opens.filter((o) => o.status === "rejected").every((o) => (o as PromiseRejectedResult).reason instanceof DomainError)).toBe(true);
    const again = await s.refunds.open(paid, { amountKopecks: 2000, idempotencyKey: "k" }, 2100, 10_000);
    expect((await s.refunds.open(paid, { amountKopecks: 2000, idempotencyKey: "k" }, 2200, 10_000)).refund.id).toBe(again.refund.id);
    expect((await s.refunds.claim(again.refund.id, 2100, 10_000))).toBeUndefined();
    expect((await s.refunds.due(20_000, 10)).sort()).toEqual([...ok, again.refund.id].sort());
    for (const id of [...ok, again.refund.id]) await s.refunds.end(id, { status: "SUCCEEDED" }, 3000);
    expect((await s.refunds.end(ok[0]!, { status: "FAILED", failure: new DomainError("PROVIDER_REFUSED") }, 3100)).status).toBe("SUCCEEDED");
    expect(await s.payments.byId(paid.id)).toMatchObject({ status: "REFUNDED", refundedKopecks: 10_000, refundingKopecks: 0 });
    expect(s.ended.map((e) => e.becameRefunded)).toEqual([false, false, true]);
    const events = await unpublished(s);
    expect(events.filter((e) => e.kind === "refund").map((e) => RefundEvent.parse(JSON.parse(e.payload)).refundedTotalKopecks)).toEqual([4000, 8000, 10_000]);
    expect(events.at(-1)).toMatchObject({ kind: "payment", status: "REFUNDED" });
    expect(await s.payments.dailyRefunds(["A"], "1970-01-01", "1970-01-01")).toEqual([{ day: "1970-01-01", count: 3, sumKopecks: 10_000 }]);
    expect(await s.refunds.pending()).toEqual({ count: 0, oldest: null });
  });

  test("the reconciliation's candidates: live payments PENDING or AUTHORIZED unchanged since a time, oldest change first, one shop's when asked; refunds PENDING since", async () => {
    const s = await open(engine);
    const started = async (shopId: string, orderId: string, at: number, over = {}) => {
      const row = await s.payments.insert(input(shopId, orderId, over), 1000, TTL);
      return (await s.payments.transition(row.id, "start", at))!.row;
    };
    const late = await started("A", "late", 1300);
    const early = await started("A", "early", 1100);
    const other = await started("B", "other", 1200);
    await started("A", "test", 1100, { isTest: true });
    const created = await s.payments.insert(input("A", "created"), 1000, TTL);
    const paid = (await s.payments.transition((await started("A", "paid", 1100)).id, "pay", 1150, { patch: () => ({ paidAt: 1150 }) }))!.row;
    const held = (await started("A", "hold", 1100, { method: "CARD", hold: true, heldKopecks: 10_000 })).id;
    await s.payments.transition(held, "authorize", 1180, { patch: () => ({ expiresAt: 9000 }) });
    expect((await s.payments.reconcileDue(1300, 10)).map((r) => r.id)).toEqual([early.id, held, other.id, late.id]);
    expect((await s.payments.reconcileDue(1250, 10, "A")).map((r) => r.id)).toEqual([early.id, held]);
    expect((await s.payments.reconcileDue(1300, 1)).map((r) => r.id)).toEqual([early.id]);
    expect((await s.payments.reconcileDue(5000, 10)).map((r) => r.id)).not.toContain(created.id);
    const refund = await s.refunds.open(paid, { amountKopecks: 1000 }, 2000, 10_000);
    expect(await s.refunds.pendingSince(1999, 10)).toEqual([]);
    expect((await s.refunds.pendingSince(2000, 10)).map((r) => r.id)).toEqual([refund.refund.id]);
    await s.refunds.end(refund.refund.id, { status: "SUCCEEDED" }, 3000);
    expect(await s.refunds.pendingSince(5000, 10)).toEqual([]);
  });

  test("an outbox round marks what the stream confirmed and leaves the rest for the next round", async () => {
    const s = await open(engine);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const p = await s.payments.insert(input("A", String(i)), 1000, TTL);
      await s.payments.transition(p.id, "cancel", 2000);
      ids.push(`${p.id}:CANCELED`);
    }
    expect(await s.outbox.backlog()).toEqual({ count: 3, oldest: 2000 });
    const seen = await s.outbox.round(10, async (rows) => rows.filter((r) => r.eventId !== ids[1]).map((r) => r.seq));
    expect(seen.map((r) => r.eventId)).toEqual(ids);
    expect((await unpublished(s)).map((r) => r.eventId)).toEqual([ids[1]!]);
  });
});
