import type { PaymentEvent, RefundEvent } from "@payaccept/contracts";
import { refundItems } from "./domain/refund-items.ts";
import type { ReceiptsStore } from "./store/receipts-store.ts";

/** What an event did: a new receipt, or why none. */
export type Recorded = "created" | "duplicate" | "no-receipt" | "nothing-left" | "inconsistent";

export const saleKey = (paymentId: string) => `sale:${paymentId}`;
/** Keyed by the refunded total after the refund, which a RefundEvent and the REFUNDED event of the same last refund share. */
export const refundKey = (paymentId: string, refundedTotalAfter: number) => `refund:${paymentId}:${refundedTotalAfter}`;

/** A SUCCESS event (a late SBP payment too): the sale receipt, when the payment was created with one. */
export async function recordSale(store: ReceiptsStore, event: PaymentEvent, now: number): Promise<Recorded> {
  if (!event.receipt) return "no-receipt";
  const row = await store.insert(
    {
      dedupeKey: saleKey(event.paymentId),
      sourceEventId: event.eventId,
      paymentId: event.paymentId,
      shopId: event.shopId,
      orderId: event.orderId,
      refundId: null,
      kind: "SALE",
      isTest: event.isTest,
      amountKopecks: event.amountKopecks,
      customer: event.receipt.customer,
      taxation: event.receipt.taxation,
      items: event.receipt.items,
      perLine: null,
    },
    now,
  );
  return row ? "created" : "duplicate";
}

type RefundInput = {
  paymentId: string;
  refundId: string | null;
  sourceEventId: string;
  refundedTotalAfter: number;
  /** "rest": whatever the earlier refund receipts left (the REFUNDED event of a whole refund). */
  amountKopecks: number | "rest";
};

/**
 * A refund receipt (возврат прихода) of the sale receipt's lines, in one transaction with the
 * reads it depends on (the sale and the earlier refunds of the payment), under the payment's lock.
 */
export function recordRefund(store: ReceiptsStore, input: RefundInput, now: number): Promise<Recorded> {
  const key = refundKey(input.paymentId, input.refundedTotalAfter);
  return store.forPayment(input.paymentId, async (t) => {
    if (await t.existsKey(key)) return "duplicate";
    const all = await t.ofPayment(input.paymentId);
    const sale = all.find((r) => r.kind === "SALE");
    if (!sale) return "no-receipt";
    const earlier = all.filter((r) => r.kind === "REFUND");
    const refundedBefore = sale.items.map((_, i) => earlier.reduce((s, r) => s + (r.perLine?.[i] ?? 0), 0));
    const left = sale.amountKopecks - earlier.reduce((s, r) => s + r.amountKopecks, 0);
    const amount = input.amountKopecks === "rest" ? left : input.amountKopecks;
    if (amount <= 0) return "nothing-left";
    if (amount > left) return "inconsistent";
    const { items, perLine } = refundItems(sale.items, refundedBefore, amount);
    await t.insert(
      {
        dedupeKey: key,
        sourceEventId: input.sourceEventId,
        paymentId: sale.paymentId,
        shopId: sale.shopId,
        orderId: sale.orderId,
        refundId: input.refundId,
        kind: "REFUND",
        isTest: sale.isTest,
        amountKopecks: amount,
        customer: sale.customer,
        taxation: sale.taxation,
        items,
        perLine,
      },
      now,
    );
    return "created";
  });
}

export const recordRefundEvent = (store: ReceiptsStore, e: RefundEvent, now: number) =>
  recordRefund(store, { paymentId: e.paymentId, refundId: e.refundId, sourceEventId: e.eventId, refundedTotalAfter: e.refundedTotalKopecks, amountKopecks: e.amountKopecks }, now);

/**
 * The REFUNDED payment event: the refunds reached the whole amount. When the last refund's
 * RefundEvent came first this is a duplicate of its receipt (same key); without refund events (a
 * whole refund before partial refunds existed) it is the refund receipt of the rest.
 */
export const recordRefundedEvent = (store: ReceiptsStore, e: PaymentEvent, now: number) =>
  recordRefund(store, { paymentId: e.paymentId, refundId: null, sourceEventId: e.eventId, refundedTotalAfter: e.amountKopecks, amountKopecks: "rest" }, now);
