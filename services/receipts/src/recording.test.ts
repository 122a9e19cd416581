import { describe, expect, test } from "bun:test";
import type { PaymentEvent, RefundEvent } from "@payaccept/contracts";
import { ENGINES, repositoriesPerFile } from "../../../tests/harness/engines.ts";
import { recordRefundedEvent, recordRefundEvent, recordSale } from "./recording.ts";
import { openReceiptsStore } from "./store/open-receipts-store.ts";
import type { ReceiptsStore } from "./store/receipts-store.ts";

const PAYMENT = "0190a0a0-0000-7000-8000-000000000001";
const line = (name: string, priceKopecks: number, quantity: number) =>
  ({ name, priceKopecks, quantity, amountKopecks: priceKopecks * quantity, vat: "vat22", paymentSubject: "commodity", paymentMode: "full_payment" }) as const;

const paymentEvent = (status: "SUCCESS" | "REFUNDED", withReceipt = true): PaymentEvent => ({
  eventId: `${PAYMENT}:${status}`,
  paymentId: PAYMENT,
  shopId: "shop",
  accountId: "acc",
  orderId: "order-1",
  status,
  previousStatus: status === "SUCCESS" ? "PENDING" : "SUCCESS",
  amountKopecks: 1000,
  commissionKopecks: 7,
  method: "SBP",
  telegramId: null,
  metadata: null,
  isTest: false,
  paidAt: "2026-01-01T00:00:00.000Z",
  createdAt: "2026-01-01T00:00:00.000Z",
  occurredAt: "2026-01-01T00:00:00.000Z",
  ...(withReceipt ? { receipt: { customer: { email: "b@example.com" }, taxation: "osn" as const, items: [line("A", 300, 2), line("B", 400, 1)] } } : {}),
});

const refundEvent = (n: number, amountKopecks: number, refundedTotalKopecks: number): RefundEvent => ({
  eventId: `refund:${n}`,
  refundId: `0190a0a0-0000-7000-8000-00000000000${n}`,

  paymentId: PAYMENT,
  shopId: "shop",
  accountId: "acc",
  orderId: "order-1",
  status: "SUCCEEDED",
  amountKopecks,
  balanceKopecks: amountKopecks,
  refundedTotalKopecks,
  paymentAmountKopecks: 1000,
  isTest: false,
  reason: null,
  failureReason: null,
  occurredAt: "2026-01-01T00:00:00.000Z",
});

const summary = async (store: ReceiptsStore) => (await store.ofPayment(PAYMENT)).map((r) => ({ kind: r.kind, amount: r.amountKopecks, refundId: r.refundId, lines: r.items.map((i) => i.amountKopecks) }));

const repos = repositoriesPerFile((choice) => openReceiptsStore(choice), "receipts.db");

describe.each(ENGINES)("receipts from stream events (%s)", (engine) => {
  const freshRepo = () => repos.open(engine);

  test("one sale receipt per payment however often its SUCCESS event comes; none without a receipt", async () => {
    const store = await freshRepo();
    expect(await recordSale(store, paymentEvent("SUCCESS"), 1)).toBe("created");
    expect(await recordSale(store, paymentEvent("SUCCESS"), 2)).toBe("duplicate");
    expect(await summary(store)).toEqual([{ kind: "SALE", amount: 1000, refundId: null, lines: [600, 400] }]);
    const bare = await freshRepo();
    expect(await recordSale(bare, paymentEvent("SUCCESS", false), 1)).toBe("no-receipt");
    expect(await recordRefundedEvent(bare, paymentEvent("REFUNDED", false), 2)).toBe("no-receipt");
  });

  test("partial refunds each get a receipt for their amount; the REFUNDED event after the last one adds none", async () => {
    const store = await freshRepo();
    await recordSale(store, paymentEvent("SUCCESS"), 1);
    expect(await recordRefundEvent(store, refundEvent(1, 250, 250), 2)).toBe("created");
    expect(await recordRefundEvent(store, refundEvent(1, 250, 250), 3)).toBe("duplicate");
    expect(await recordRefundEvent(store, refundEvent(2, 750, 1000), 4)).toBe("created");
    expect(await recordRefundedEvent(store, paymentEvent("REFUNDED"), 5)).toBe("duplicate");
    expect(await summary(store)).toEqual([
      { kind: "SALE", amount: 1000, refundId: null, lines: [600, 400] },
      { kind: "REFUND", amount: 250, refundId: refundEvent(1, 0, 0).refundId, lines: [150, 100] },
      { kind: "REFUND", amount: 750, refundId: refundEvent(2, 0, 0).refundId, lines: [450, 300] },
    ]);
  });

  test("REFUNDED before the last refund's own event: one receipt of the rest, and the refund event then adds none", async () => {
    const store = await freshRepo();
    await recordSale(store, paymentEvent("SUCCESS"), 1);
    await recordRefundEvent(store, refundEvent(1, 400, 400), 2);
    expect(await recordRefundedEvent(store, paymentEvent("REFUNDED"), 3)).toBe("created");
    expect(await recordRefundEvent(store, refundEvent(2, 600, 1000), 4)).toBe("duplicate");
    expect((await summary(store)).map((r) => r.amount)).toEqual([1000, 400, 600]);
  });

  test("a whole refund without refund events is one receipt of every line", async () => {
    const store = await freshRepo();
    await recordSale(store, paymentEvent("SUCCESS"), 1);
    expect(await recordRefundedEvent(store, paymentEvent("REFUNDED"), 2)).toBe("created");
    expect(await recordRefundedEvent(store, paymentEvent("REFUNDED"), 3)).toBe("duplicate");
    expect((await summary(store))[1]).toEqual({ kind: "REFUND", amount: 1000, refundId: null, lines: [600, 400] });
  });

  test("a refund larger than what is left on the sale receipt makes no receipt", async () => {
    const store = await freshRepo();
    await recordSale(store, paymentEvent("SUCCESS"), 1);
    await recordRefundEvent(store, refundEvent(1, 900, 900), 2);
    expect(await recordRefundEvent(store, refundEvent(2, 200, 1100), 3)).toBe("inconsistent");
    expect(await summary(store)).toHaveLength(2);
  });
});
