import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PaymentEvent, type PaymentStatus } from "@payaccept/contracts";
import { TRANSITIONS, type PaymentTrigger } from "../domain/state-machine.ts";
import { openPaymentsStore } from "./open.ts";
import { createPaymentsRepo, OrderIdTaken, type CommittedTransition, type NewPayment, type PaymentsRepo, type PaymentsStore } from "./payments-repo.ts";
import { outbox, statusCounts } from "./schema.ts";

const dir = mkdtempSync(join(tmpdir(), "payments-repo-test-"));
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
const input = (shopId: string, orderId: string): NewPayment => ({
  shopId,
  accountId: `acct-${shopId}`,
  orderId,
  amountKopecks: 10000,
  commissionKopecks: 250,
  description: null,
  email: null,
  method: null,
  telegramId: "42",
  metadata: { a: 1 },
  successUrl: null,
  failUrl: null,
  isTest: false,
});

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

  test("a sandbox outcome moves only a PENDING payment", () => {
    const p = repo.insert(input("A", "1"), 1000, TTL);
    repo.transition(p.id, "start", 1500);
    repo.transition(p.id, "expire", 1600);
    expect(repo.transition(p.id, "pay", 1700, { sandbox: true })!.decision).toEqual({ kind: "refused", status: "EXPIRED" });
    expect(repo.transition(p.id, "pay", 1700)!.decision).toEqual({ kind: "move", from: "EXPIRED", to: "SUCCESS" });
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
