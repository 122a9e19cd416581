import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DomainError, RefundEvent } from "@payaccept/contracts";
import { eq } from "drizzle-orm";
import { openPaymentsFile as openPaymentsStore, createPaymentsRepo, type SqlitePaymentsRepo as PaymentsRepo, type SqliteStore as PaymentsStore, createRefundsRepo, type SqliteRefundsRepo as RefundsRepo } from "./payments-store.sqlite.ts";
import type { EndedRefund, PaymentRow } from "./payments-store.ts";
import { outbox, payments } from "./schema.sqlite.ts";

const dir = mkdtempSync(join(tmpdir(), "refunds-sqlite-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let store: PaymentsStore;
let repo: PaymentsRepo;
let refunds: RefundsRepo;
let ended: EndedRefund[];
let files = 0;
const LEASE = 10_000;

beforeEach(() => {
  store = openPaymentsStore(join(dir, `payments-${++files}.db`));
  repo = createPaymentsRepo(store, () => {});
  ended = [];
  refunds = createRefundsRepo(store, repo, (e) => ended.push(e));
});

/** A SUCCESS payment of 10 000 kopecks with a 250 commission. */
function paid(): PaymentRow {
  const row = repo.insert(
    {
      shopId: "S",
      accountId: "A",
      orderId: Bun.randomUUIDv7(),
      amountKopecks: 10_000,
      commissionKopecks: 250,
      description: null,
      email: null,
      method: "SBP",
      telegramId: null,
      metadata: null,
      successUrl: null,
      failUrl: null,
      isTest: false,
    },
    1,
    60_000,
  );
  repo.transition(row.id, "start", 2);
  return repo.transition(row.id, "pay", 3, { patch: () => ({ paidAt: 3 }) })!.row;
}
const events = () => store.db.select().from(outbox).all();

describe("open", () => {
  test("promises the amount on the payment; a repeated key returns the first refund", () => {
    const p = paid();
    const first = refunds.open(p, { amountKopecks: 4_000, idempotencyKey: "k" }, 10, LEASE);
    expect(first.created).toBe(true);
    expect(first.refund).toMatchObject({ status: "PENDING", amountKopecks: 4_000, balanceKopecks: 3_900, retryAt: 10 + LEASE });
    expect(refunds.open(p, { amountKopecks: 9_000, idempotencyKey: "k" }, 11, LEASE)).toEqual({ refund: first.refund, created: false });
    expect(repo.byId(p.id)).toMatchObject({ refundingKopecks: 4_000, refundedKopecks: 0 });
  });

  test("refunds in progress count: the next one may take only what is left", () => {
    const p = paid();
    refunds.open(p, { amountKopecks: 6_000 }, 10, LEASE);
    expect(() => refunds.open(p, { amountKopecks: 4_001 }, 11, LEASE)).toThrow("exceeds what is left to refund, 40.00 RUB (4000 kopecks)");
    expect(refunds.open(p, {}, 12, LEASE).refund.amountKopecks).toBe(4_000);
  });

  test("the database itself refuses refunds above the amount, whatever the code did", () => {
    const p = paid();
    const over = () => store.db.update(payments).set({ refundingKopecks: 6_000, refundedKopecks: 4_001 }).where(eq(payments.id, p.id)).run();
    expect(over).toThrow("refunds exceed the payment amount");
    expect(() => store.db.update(payments).set({ refundingKopecks: -1 }).where(eq(payments.id, p.id)).run()).toThrow("refunds exceed the payment amount");
  });
});

describe("end", () => {
  test("partial refunds then the rest: one RefundEvent each, then SUCCESS → REFUNDED with its event, in commit order", () => {
    const p = paid();
    const a = refunds.open(p, { amountKopecks: 3_000 }, 10, LEASE).refund;
    const b = refunds.open(p, {}, 11, LEASE).refund;
    refunds.end(a.id, { status: "SUCCEEDED" }, 20);
    expect(repo.byId(p.id)).toMatchObject({ status: "SUCCESS", refundedKopecks: 3_000, refundingKopecks: 7_000 });
    refunds.end(b.id, { status: "SUCCEEDED" }, 21);
    expect(repo.byId(p.id)).toMatchObject({ status: "REFUNDED", refundedKopecks: 10_000, refundingKopecks: 0 });
    expect(ended.map((e) => e.becameRefunded)).toEqual([false, true]);
    expect(events().map((e) => [e.kind, e.status])).toEqual([
      ["payment", "SUCCESS"],
      ["refund", "SUCCEEDED"],
      ["refund", "SUCCEEDED"],
      ["payment", "REFUNDED"],
    ]);
    const last = RefundEvent.parse(JSON.parse(events()[2]!.payload));
    expect(last).toMatchObject({ refundId: b.id, amountKopecks: 7_000, refundedTotalKopecks: 10_000, paymentAmountKopecks: 10_000, status: "SUCCEEDED" });
    // The shares of the net receipt add up to it exactly.
    expect(a.balanceKopecks + b.balanceKopecks).toBe(9_750);
  });

  test("a SUCCEEDED refund is counted on the Moscow day it ended, a FAILED one is not (the overview's rollup)", () => {
    const p = paid();
    const lateDay1 = Date.parse("2026-03-01T20:59:00Z");
    const day2 = Date.parse("2026-03-01T21:00:00Z");
    const [a, b, c] = [1_000, 2_000, 3_000].map((amountKopecks, i) => refunds.open(p, { amountKopecks }, 10 + i, LEASE).refund);
    refunds.end(a!.id, { status: "SUCCEEDED" }, lateDay1);
    refunds.end(b!.id, { status: "SUCCEEDED" }, day2);
    refunds.end(c!.id, { status: "FAILED", failure: new DomainError("REFUND_DECLINED", { detail: "refund_declined" }) }, day2);
    expect(repo.dailyRefunds(["S"], "2026-03-01", "2026-03-02")).toEqual([
      { day: "2026-03-01", count: 1, sumKopecks: 1_000 },
      { day: "2026-03-02", count: 1, sumKopecks: 2_000 },
    ]);
  });

  test("a FAILED refund frees its amount and moves nothing else; a second end changes nothing", () => {
    const p = paid();
    const r = refunds.open(p, {}, 10, LEASE).refund;
    refunds.end(r.id, { status: "FAILED", failure: new DomainError("REFUND_DECLINED", { detail: "refund_declined" }) }, 20);
    expect(refunds.end(r.id, { status: "SUCCEEDED" }, 21)).toMatchObject({
      status: "FAILED",
      failureCode: "REFUND_DECLINED",
      failureParams: { detail: "refund_declined" },
      completedAt: 20,
      retryAt: null,
    });
    expect(repo.byId(p.id)).toMatchObject({ status: "SUCCESS", refundedKopecks: 0, refundingKopecks: 0 });
    expect(events().map((e) => [e.kind, e.status])).toEqual([
      ["payment", "SUCCESS"],
      ["refund", "FAILED"],
    ]);
    expect(ended).toHaveLength(1);
  });
});

describe("the sweeper's view", () => {
  test("a PENDING refund is due once its lease ends, and one claim at a time takes it", () => {
    const p = paid();
    const r = refunds.open(p, {}, 10, LEASE).refund;
    expect(refunds.due(10 + LEASE - 1, 10)).toEqual([]);
    expect(refunds.due(10 + LEASE, 10)).toEqual([r.id]);
    expect(refunds.claim(r.id, 10 + LEASE, LEASE)?.retryAt).toBe(10 + 2 * LEASE);
    expect(refunds.claim(r.id, 10 + LEASE, LEASE)).toBeUndefined();
    refunds.end(r.id, { status: "SUCCEEDED" }, 10 + LEASE + 1);
    expect(refunds.due(Number.MAX_SAFE_INTEGER, 10)).toEqual([]);
  });
});

test("pending: how many refunds wait, and since when", () => {
  expect(refunds.pending()).toEqual({ count: 0, oldest: null });
  const p = paid();
  const r = refunds.open(p, { amountKopecks: 100 }, 10, LEASE).refund;
  refunds.open(p, { amountKopecks: 100 }, 12, LEASE);
  expect(refunds.pending()).toEqual({ count: 2, oldest: 10 });
  refunds.end(r.id, { status: "SUCCEEDED" }, 20);
  expect(refunds.pending()).toEqual({ count: 1, oldest: 12 });
});
