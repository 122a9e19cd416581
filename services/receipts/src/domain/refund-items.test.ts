import { describe, expect, test } from "bun:test";
import type { ReceiptItem } from "@payaccept/contracts";
import { refundItems } from "./refund-items.ts";

const line = (name: string, priceKopecks: number, quantity: number): ReceiptItem => ({
  name,
  priceKopecks,
  quantity,
  amountKopecks: Math.round(priceKopecks * quantity),
  vat: "vat22",
  paymentSubject: "commodity",
  paymentMode: "full_payment",
});
const sale = [line("Кофе", 300, 2), line("Чашка", 100, 1), line("Доставка", 1, 1)]; // 600 + 100 + 1 = 701

describe("refundItems", () => {
  test("a full refund takes back every line as sold", () => {
    expect(refundItems(sale, [0, 0, 0], 701)).toEqual({ items: sale, perLine: [600, 100, 1] });
  });

  test("a partial refund splits proportionally, the leftover kopecks to the largest remainders, and adds up", () => {
    const { items, perLine } = refundItems(sale, [0, 0, 0], 350);
    // Exact shares 299.57, 49.93, 0.499: floors 299 + 49 + 0 = 348, two kopecks left for lines 0 and 1.
    expect(perLine).toEqual([300, 50, 0]);
    expect(items).toEqual([
      { ...sale[0]!, quantity: 1, priceKopecks: 300, amountKopecks: 300 },
      { ...sale[1]!, quantity: 1, priceKopecks: 50, amountKopecks: 50 },
    ]);
  });

  test("successive refunds never take back more than a line has left and end at the sale", () => {
    const taken = [0, 0, 0];
    for (const amount of [1, 233, 1, 400, 66]) {
      const { items, perLine } = refundItems(sale, taken, amount);
      expect(items.reduce((s, i) => s + i.amountKopecks, 0)).toBe(amount);
      perLine.forEach((v, i) => (taken[i]! += v));
      taken.forEach((t, i) => expect(t).toBeLessThanOrEqual(sale[i]!.amountKopecks));
    }
    expect(taken).toEqual([600, 100, 1]);
  });

  test("refuses more than is left", () => {
    expect(() => refundItems(sale, [600, 100, 0], 2)).toThrow(RangeError);
  });
});
