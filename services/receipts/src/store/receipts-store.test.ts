import { describe, expect, test } from "bun:test";
import type { PaymentEvent, RefundEvent } from "@payaccept/contracts";
import { ENGINES, repositoriesPerFile } from "../../../../tests/harness/engines.ts";
import { recordRefundEvent, recordSale } from "../recording.ts";
import { openReceiptsStore } from "./open-receipts-store.ts";
import type { NewReceipt } from "./receipts-store.ts";

const repos = repositoriesPerFile((choice) => openReceiptsStore(choice), "receipts.db");

const line = { name: "Товар", quantity: 1, priceKopecks: 1000, amountKopecks: 1000, vat: "vat22", paymentSubject: "commodity", paymentMode: "full_payment" } as const;

const receipt = (n: number): NewReceipt => ({
  dedupeKey: `sale:p${n}`,
  sourceEventId: `p${n}:SUCCESS`,
  paymentId: `p${n}`,
  shopId: "shop",
  orderId: `o${n}`,
  refundId: null,
  kind: "SALE",
  isTest: true,
  amountKopecks: 1000,
  customer: { email: "b@example.com" },
  taxation: "osn",
  items: [line],
  perLine: null,
});

describe.each(ENGINES)("receipts store shared by two replicas (%s)", (engine) => {
  test("every due receipt is claimed by exactly one replica", async () => {
    const [a, b] = await repos.replicas(engine);
    for (let n = 0; n < 40; n++) await a.insert(receipt(n), 1000);
    const claimed: string[] = [];
    // Bounded: each round takes at least one of the 40 rows while any is due.
    for (let round = 0; round < 40 && claimed.length < 40; round++) {
      const [x, y] = await Promise.all([a.claimDue(2000, 7, 99_000), b.claimDue(2000, 7, 99_000)]);
      claimed.push(...[...x, ...y].map((r) => r.id));
    }
    expect(claimed).toHaveLength(40);
    expect(new Set(claimed).size).toBe(40);
    expect(await a.claimDue(2000, 7, 99_000)).toEqual([]);
    expect(await b.nextDueAt()).toBe(99_000);
  });

  test("an answer about a document changes the receipt only while it is on its way with that document: a later or final state is left alone", async () => {
    const [a, b] = await repos.replicas(engine);
    const row = (await a.insert(receipt(100), 1000))!;
    // A callback and a poll both told document 0 failed, at once on two replicas: one moves the
    // receipt to its next document, the other finds it moved on (no document skipped).
    const [x, y] = await Promise.all([
      a.updateIfCurrent(row.id, 0, { status: "PENDING", generation: 1, attempts: 1 }, 2000),
      b.updateIfCurrent(row.id, 0, { status: "PENDING", generation: 1, attempts: 1 }, 2000),
    ]);
    expect([x, y].filter((r) => r !== undefined)).toHaveLength(1);
    expect((await a.byId(row.id))!.generation).toBe(1);
    expect(await b.updateIfCurrent(row.id, 0, { status: "SENT", registerDocumentId: "doc-0" }, 3000)).toBeUndefined();
    const registered = await b.updateIfCurrent(row.id, 1, { status: "REGISTERED", fiscalDocumentNumber: 5, nextAttemptAt: null }, 3000);
    expect(registered).toMatchObject({ status: "REGISTERED", fiscalDocumentNumber: 5, updatedAt: 3000 });
    expect(await a.updateIfCurrent(row.id, 1, { status: "SENT", attempts: 9 }, 4000)).toBeUndefined();
    expect(await a.byId(row.id)).toEqual(registered);
  });

  test("the FAILED receipts, the latest failed first, of one last error when asked", async () => {
    const [a] = await repos.replicas(engine);
    const fail = async (n: number, at: number, reason: "REGISTER_REFUSED" | "REGISTER_TIMEOUT") =>
      (await a.update((await a.insert(receipt(200 + n), 1000))!.id, { status: "FAILED", nextAttemptAt: null, lastErrorCode: reason, lastErrorParams: {} }, at)).id;
    const older = await fail(1, 5000, "REGISTER_REFUSED");
    const newer = await fail(2, 6000, "REGISTER_REFUSED");
    const timeout = await fail(3, 5500, "REGISTER_TIMEOUT");
    await a.insert(receipt(204), 1000);
    expect((await a.failed(10)).map((r) => r.id)).toEqual([newer, timeout, older]);
    expect((await a.failed(10, "REGISTER_REFUSED")).map((r) => r.id)).toEqual([newer, older]);
    expect((await a.failed(1)).map((r) => r.id)).toEqual([newer]);
  });

  test("refund receipts of one payment recorded at once on two replicas never take back more than the sale", async () => {
    const [a, b] = await repos.replicas(engine);
    const sale = {
      eventId: "p1:SUCCESS",
      paymentId: "0190a0a0-0000-7000-8000-000000000001",
      shopId: "shop",
      accountId: "acc",
      orderId: "o1",
      status: "SUCCESS",
      previousStatus: "PENDING",
      amountKopecks: 1000,
      commissionKopecks: 7,
      method: "SBP",
      telegramId: null,
      metadata: null,
      isTest: true,
      paidAt: "2026-01-01T00:00:00.000Z",
      createdAt: "2026-01-01T00:00:00.000Z",
      occurredAt: "2026-01-01T00:00:00.000Z",
      receipt: { customer: { email: "b@example.com" }, taxation: "osn", items: [line] },
    } satisfies PaymentEvent;
    await recordSale(a, sale, 1);
    // Two refunds of 600 that the events claim both happened (they cannot both be true): each
    // replica reads what is left and inserts under its own key, so only the payment's lock keeps
    // the second from reading the sale before the first committed.
    const refund = (n: number): RefundEvent => ({
      eventId: `refund:${n}`,
      refundId: `r${n}`,
      paymentId: sale.paymentId,
      shopId: "shop",
      accountId: "acc",
      orderId: "o1",
      status: "SUCCEEDED",
      amountKopecks: 600,
      balanceKopecks: 600,
      refundedTotalKopecks: 600 * n,
      paymentAmountKopecks: 1000,
      isTest: true,
      reason: null,
      failureReason: null,
      occurredAt: "2026-01-01T00:00:00.000Z",
    });
    const outcomes = await Promise.all([recordRefundEvent(a, refund(1), 2), recordRefundEvent(b, refund(2), 2)]);
    expect(outcomes.sort()).toEqual(["created", "inconsistent"]);
    const refunds = (await b.ofPayment(sale.paymentId)).filter((r) => r.kind === "REFUND");
    expect(refunds.map((r) => r.amountKopecks)).toEqual([600]);
  });
});

test("moving to PostgreSQL: the old receipts.db is copied once, rows as they were, and its receipts still on their way stay due", async () => {
  const file = await repos.stores.next("sqlite", "receipts.db");
  const old = await openReceiptsStore(file);
  const pending = (await old.insert(receipt(1), 1000))!;
  const done = await old.update((await old.insert({ ...receipt(2), perLine: [1000] }, 1000))!.id, { status: "REGISTERED", fiscalDocumentNumber: 7, fiscalSign: "123", fnNumber: "999", registeredAt: 1500, nextAttemptAt: null }, 1500);
  await old.close();
  if (file.engine !== "sqlite") throw new Error("unreachable");

  const moved = repos.track(await openReceiptsStore(await repos.stores.next("postgres", "receipts.db"), { importFrom: file.path }));
  expect(await moved.byId(pending.id)).toEqual(pending);
  expect(await moved.byId(done.id)).toEqual(done);
  expect((await moved.claimDue(2000, 10, 9000)).map((r) => r.id)).toEqual([pending.id]);
  // Never again from that file: a store lost later is not refilled with the old snapshot.
  const again = repos.track(await openReceiptsStore(await repos.stores.next("postgres", "receipts.db"), { importFrom: file.path }));
  expect(await again.ofPayment("p1")).toEqual([]);
});
