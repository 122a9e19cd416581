import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PaymentEvent, type PaymentStatus } from "@payaccept/contracts";
import { TRANSITIONS, type PaymentTrigger } from "../domain/state-machine.ts";
import { openPaymentsFile as openPaymentsStore, createPaymentsRepo, type SqlitePaymentsRepo as PaymentsRepo, type SqliteStore as PaymentsStore } from "./payments-store.sqlite.ts";
import { newPayment } from "../../test-support/new-payment.ts";
import { OrderIdTaken, type CommittedTransition } from "./payments-store.ts";
import { outbox, statusCounts } from "./schema.sqlite.ts";

const dir = mkdtempSync(join(tmpdir(), "payments-sqlite-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let store: PaymentsStore;
let repo: PaymentsRepo;
let committed: CommittedTransition[];
let files = 0;
beforeEach(() => {
  store = openPaymentsStore(join(dir, `payments-${++files}.db`));
  committed = [];
  repo = createPaymentsRepo(store, (t) => committed.push(t));
});

const TTL = 60_000;
const input = (shopId: string, orderId: string) => newPayment(shopId, orderId);

describe("insert", () => {
  test("numbers each shop's payments 1, 2, 3… and sets the CREATED deadline", () => {
    const a1 = repo.insert(input("A", "1"), 1000, TTL);
    const b1 = repo.insert(input("B", "1"), 1000, TTL);
    const a2 = repo.insert(input("A", "2"), 1001, TTL);
    expect([a1.seq, b1.seq, a2.seq]).toEqual([1, 1, 2]);
    expect(a1).toMatchObject({ status: "CREATED", createdAt: 1000, expiresAt: 1000 + TTL, metadata: { a: 1 } });
  });

  test("createdAt never goes back within a shop and ids keep the same order, whatever the clock does", () => {
    const rows = [5000, 4000, 4000, 6000, 5999].map((now, i) => repo.insert(input("A", String(i)), now, TTL));
    expect(rows.map((r) => r.createdAt)).toEqual([5000, 5000, 5000, 6000, 6000]);
    const ids = rows.map((r) => r.id);
    expect([...ids].sort()).toEqual(ids);
    // another shop has its own clock floor
    expect(repo.insert(input("B", "x"), 10, TTL).createdAt).toBe(10);
  });

  test("a taken orderId is refused without using up a seq", () => {
    repo.insert(input("A", "dup"), 1000, TTL);
    expect(() => repo.insert(input("A", "dup"), 1001, TTL)).toThrow(OrderIdTaken);
    expect(repo.insert(input("A", "next"), 1002, TTL).seq).toBe(2);
  });
});

describe("transition", () => {
  test("a move into a final status writes its event in the same transaction", () => {
    const p = repo.insert(input("A", "1"), 1000, TTL);
    const r = repo.transition(p.id, "cancel", 2000)!;
    expect(r.decision).toEqual({ kind: "move", from: "CREATED", to: "CANCELED" });
    expect(r.row).toMatchObject({ status: "CANCELED", updatedAt: 2000, expiresAt: null });
    const rows = store.db.select().from(outbox).all();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ eventId: `${p.id}:CANCELED`, paymentId: p.id, status: "CANCELED", publishedAt: null });
    expect(PaymentEvent.parse(JSON.parse(rows[0]!.payload))).toMatchObject({
      paymentId: p.id,
      shopId: "A",
      accountId: "acct-A",
      status: "CANCELED",
      previousStatus: "CREATED",
      telegramId: "42",
      metadata: { a: 1 },
      occurredAt: new Date(2000).toISOString(),
    });
    expect(committed.map((c) => [c.from, c.to, c.trigger])).toEqual([["CREATED", "CANCELED", "cancel"]]);
  });

  test("a repeat or a refused trigger changes nothing and writes no event", () => {
    const p = repo.insert(input("A", "1"), 1000, TTL);
    repo.transition(p.id, "cancel", 2000);
    expect(repo.transition(p.id, "cancel", 3000)!.decision.kind).toBe("already");
    expect(repo.transition(p.id, "pay", 3000)!.decision.kind).toBe("refused");
    expect(repo.byId(p.id)).toMatchObject({ status: "CANCELED", updatedAt: 2000 });
    expect(store.db.select().from(outbox).all()).toHaveLength(1);
    expect(committed).toHaveLength(1);
  });

  test("start is not final: no event, a new deadline from the patch", () => {
    const p = repo.insert(input("A", "1"), 1000, TTL);
    const r = repo.transition(p.id, "start", 1500, { patch: () => ({ method: "SBP", commissionKopecks: 70, expiresAt: 9999 }) })!;
    expect(r.row).toMatchObject({ status: "PENDING", method: "SBP", commissionKopecks: 70, expiresAt: 9999 });
    expect(store.db.select().from(outbox).all()).toHaveLength(0);
  });

  test("onlyIf refuses a move when the row changed meanwhile (a switch racing another switch)", () => {
    const p = repo.insert(input("A", "1"), 1000, TTL);
    repo.transition(p.id, "start", 1500, { patch: () => ({ method: "SBP", providerSessionId: "s-sbp" }) });
    const stale = (row: { providerSessionId: string | null }) => row.providerSessionId === "s-old";
    expect(repo.transition(p.id, "switch", 1600, { onlyIf: stale, patch: () => ({ method: "CARD" }) })!.decision).toEqual({ kind: "refused", status: "PENDING" });
    const moved = repo.transition(p.id, "switch", 1600, { onlyIf: (row) => row.providerSessionId === "s-sbp", patch: () => ({ method: "CARD", providerSessionId: "s-card" }) })!;
    expect(moved.row).toMatchObject({ status: "PENDING", method: "CARD", providerSessionId: "s-card" });
    // a switch is no status change: no event
    expect(store.db.select().from(outbox).all()).toHaveLength(0);
  });

  test("a method named at creation is fixed; none named is the buyer's choice", () => {
    expect(repo.insert({ ...input("A", "fixed"), method: "CARD" }, 1000, TTL).methodFixed).toBe(true);
    expect(repo.insert(input("A", "free"), 1000, TTL).methodFixed).toBe(false);
  });

  test("an unknown id is undefined", () => {
    expect(repo.transition(Bun.randomUUIDv7(), "cancel", 1)).toBeUndefined();
  });
});

test("the per-status counters always equal the payments, over any run of triggers", () => {
  let seed = 7;
  const rnd = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
  const triggers = Object.keys(TRANSITIONS) as PaymentTrigger[];
  const ids = Array.from({ length: 60 }, (_, i) => repo.insert(input(i % 3 === 0 ? "A" : "B", String(i)), 1000 + i, TTL).id);
  for (let step = 0; step < 2000; step++) repo.transition(ids[rnd(ids.length)]!, triggers[rnd(triggers.length)]!, 5000 + step);

  const actual = store.sqlite.query<{ shop_id: string; status: PaymentStatus; n: number }, []>("SELECT shop_id, status, count(*) AS n FROM payments GROUP BY 1, 2").all();
  const allCounters = store.db.select().from(statusCounts).all();
  expect(allCounters.every((c) => c.count >= 0)).toBe(true);
  const counters = allCounters.filter((c) => c.count !== 0);
  const key = (shop: string, status: string) => `${shop}/${status}`;
  expect(new Map(counters.map((c) => [key(c.shopId, c.status), c.count]))).toEqual(new Map(actual.map((a) => [key(a.shop_id, a.status), a.n])));
  // and each final status reached has exactly one event
  const finals = store.db.select().from(outbox).all();
  expect(new Set(finals.map((f) => f.eventId)).size).toBe(finals.length);
});

describe("dueForExpiry", () => {
  test("lists CREATED and PENDING payments whose deadline has passed, oldest first", () => {
    const a = repo.insert(input("A", "a"), 1000, 100); // due at 1100
    const b = repo.insert(input("A", "b"), 1000, 50); // due at 1050
    const c = repo.insert(input("A", "c"), 1000, 500); // due at 1500
    const d = repo.insert(input("A", "d"), 1000, 10);
    repo.transition(d.id, "cancel", 1001);
    expect(repo.dueForExpiry(1100, 10)).toEqual([b.id, a.id]);
    expect(repo.dueForExpiry(2000, 1)).toEqual([b.id]);
    repo.transition(c.id, "start", 1200, { patch: () => ({ expiresAt: 3000 }) });
    expect(repo.dueForExpiry(2000, 10)).toEqual([b.id, a.id]);
    expect(repo.dueForExpiry(3000, 10)).toEqual([b.id, a.id, c.id]);
  });
});

describe("the dashboard's daily rollup and list", () => {
  // 2026-03-01 20:59:59.999Z is still March 1st in Moscow; 21:00Z is March 2nd.
  const lateMarch1 = Date.parse("2026-03-01T20:59:59.000Z");
  const earlyMarch2 = Date.parse("2026-03-01T21:00:00.000Z");

  function seed() {
    const a = repo.insert({ ...input("S", "a"), amountKopecks: 300 }, lateMarch1, TTL);
    const b = repo.insert({ ...input("S", "b"), amountKopecks: 100 }, earlyMarch2, TTL);
    const c = repo.insert({ ...input("S", "c"), amountKopecks: 200 }, earlyMarch2 + 1, TTL);
    repo.transition(a.id, "start", earlyMarch2 + 5, { patch: () => ({ method: "SBP" }) });
    repo.transition(a.id, "pay", earlyMarch2 + 6);
    repo.transition(a.id, "refund", earlyMarch2 + 7);
    repo.transition(b.id, "start", earlyMarch2 + 8, { patch: () => ({ method: "CARD" }) });
    repo.transition(b.id, "pay", earlyMarch2 + 9);
    repo.insert({ ...input("other", "x"), amountKopecks: 999 }, earlyMarch2, TTL);
    return { a, b, c };
  }

  test("every insert and transition moves the payment's cell (Moscow day of creation, method, status) in the same transaction", () => {
    const { a } = seed();
    expect(repo.dailyStats(["S"], "2026-03-01", "2026-03-02")).toEqual([
      { day: "2026-03-01", method: "SBP", status: "REFUNDED", count: 1, sumKopecks: 300 },
      { day: "2026-03-02", method: null, status: "CREATED", count: 1, sumKopecks: 200 },
      { day: "2026-03-02", method: "CARD", status: "SUCCESS", count: 1, sumKopecks: 100 },
    ]);
    expect(repo.dailyStats(["S", "other"], "2026-03-02", "2026-03-02").find((r) => r.status === "CREATED")).toMatchObject({ count: 2, sumKopecks: 1199 });
    expect(repo.dailyStats(["S"], "2026-03-03", "2026-03-31")).toEqual([]);
    expect(repo.finalEvents(a.id)).toEqual([
      { status: "SUCCESS", at: earlyMarch2 + 6 },
      { status: "REFUNDED", at: earlyMarch2 + 7 },
    ]);
  });

  test("the list is newest first by default, sorts by amount both ways, and totals the whole filtered set", () => {
    const { a, b, c } = seed();
    const ids = (f: Partial<Parameters<PaymentsRepo["browse"]>[1]>) => repo.browse("S", { sort: "created_desc", page: 1, limit: 50, ...f }).items.map((r) => r.id);
    expect(ids({})).toEqual([c.id, b.id, a.id]);
    expect(ids({ sort: "created_asc" })).toEqual([a.id, b.id, c.id]);
    expect(ids({ sort: "amount_desc" })).toEqual([a.id, c.id, b.id]);
    expect(ids({ sort: "amount_asc" })).toEqual([b.id, c.id, a.id]);
    expect(ids({ limit: 2, page: 2 })).toEqual([a.id]);
    expect(ids({ statuses: ["SUCCESS", "CREATED"] })).toEqual([c.id, b.id]);
    expect(ids({ statuses: ["SUCCESS", "CREATED"], sort: "created_asc", limit: 1, page: 2 })).toEqual([c.id]);
    expect(ids({ fromDay: "2026-03-02" })).toEqual([c.id, b.id]);
    expect(ids({ toDay: "2026-03-01" })).toEqual([a.id]);
    // The whole filtered set per status, whatever the page: the list says what was paid, not a sum of everything.
    expect(repo.browse("S", { sort: "created_desc", page: 1, limit: 1 }).byStatus).toEqual([
      { status: "CREATED", count: 1, sumKopecks: 200 },
      { status: "REFUNDED", count: 1, sumKopecks: 300 },
      { status: "SUCCESS", count: 1, sumKopecks: 100 },
    ]);
    expect(repo.browse("S", { fromDay: "2026-03-02", statuses: ["SUCCESS"], sort: "amount_asc", page: 1, limit: 50 }).byStatus).toEqual([{ status: "SUCCESS", count: 1, sumKopecks: 100 }]);
    expect(repo.browse("S", { fromDay: "2026-04-01", sort: "created_desc", page: 1, limit: 50 })).toEqual({ items: [], byStatus: [] });
  });
});

test("a period too large to sort is walked along the amount index, with the same order and filter", () => {
  const insert = store.sqlite.prepare(
    `INSERT INTO payments (id, shop_id, account_id, seq, order_id, status, amount_kopecks, commission_kopecks, is_test, created_at, updated_at)
     VALUES (?, 'big', 'acct', ?, ?, ?, ?, 0, 0, ?, ?)`,
  );
  const rows = Array.from({ length: 20_050 }, (_, i) => ({ seq: i + 1, amount: 100 + ((i * 7919) % 20_000), status: i % 3 === 0 ? "FAILED" : "SUCCESS" }));
  store.sqlite.transaction(() => rows.forEach((r) => insert.run(`id-${String(r.seq).padStart(6, "0")}`, r.seq, `o-${r.seq}`, r.status, r.amount, 1000 + r.seq, 1000 + r.seq)))();
  const expected = rows
    .filter((r) => r.status === "FAILED")
    .sort((x, y) => y.amount - x.amount || y.seq - x.seq)
    .slice(10, 15)
    .map((r) => r.seq);
  const page = repo.browse("big", { statuses: ["FAILED"], sort: "amount_desc", page: 3, limit: 5 });
  expect(page.items.map((r) => r.seq)).toEqual(expected);
  const plan = store.sqlite
    .query("EXPLAIN QUERY PLAN SELECT seq FROM payments WHERE shop_id = 'big' AND +seq >= 1 AND +seq <= 20050 AND +status IN ('FAILED') ORDER BY amount_kopecks DESC, seq DESC LIMIT 5")
    .all()
    .map((r) => (r as { detail: string }).detail)
    .join("; ");
  expect(plan).toBe("SEARCH payments USING COVERING INDEX payments_shop_amount_idx (shop_id=?)");
});
