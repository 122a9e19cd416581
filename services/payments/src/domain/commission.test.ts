import { describe, expect, test } from "bun:test";
import { DEFAULT_TARIFF, MAX_AMOUNT_KOPECKS } from "@payaccept/contracts";
import { commissionFor, quoteCommission } from "./commission.ts";

describe("commissionFor", () => {
  test("percent in basis points, rounded half up", () => {
    const t = { percentBp: 250, fixedKopecks: 0, minKopecks: 0 };
    expect(commissionFor(10000, t)).toBe(250);
    expect(commissionFor(100, t)).toBe(3); // 2.5 → 3
    expect(commissionFor(99, { ...t, percentBp: 150 })).toBe(1); // 1.485 → 1
    expect(commissionFor(20, { ...t, percentBp: 2500 })).toBe(5); // exactly 5
    expect(commissionFor(30, { ...t, percentBp: 5000 })).toBe(15);
    expect(commissionFor(1, { ...t, percentBp: 5000 })).toBe(1); // 0.5 → 1
  });

  test("adds the fixed part, then applies the minimum", () => {
    expect(commissionFor(10000, { percentBp: 100, fixedKopecks: 30, minKopecks: 0 })).toBe(130);
    expect(commissionFor(1000, { percentBp: 100, fixedKopecks: 5, minKopecks: 50 })).toBe(50);
    expect(commissionFor(100000, { percentBp: 100, fixedKopecks: 5, minKopecks: 50 })).toBe(1005);
  });

  test("exact at the largest amount and rate", () => {
    expect(commissionFor(MAX_AMOUNT_KOPECKS, { percentBp: 10000, fixedKopecks: 0, minKopecks: 0 })).toBe(MAX_AMOUNT_KOPECKS);
    expect(commissionFor(MAX_AMOUNT_KOPECKS - 1, { percentBp: 9999, fixedKopecks: 0, minKopecks: 0 })).toBe(9_999_000_000 - 1);
  });
});

describe("quoteCommission", () => {
  test("is the highest over the methods the buyer may pick", () => {
    expect(quoteCommission(10000, DEFAULT_TARIFF, ["SBP", "CARD"])).toBe(250);
    expect(quoteCommission(10000, DEFAULT_TARIFF, ["SBP"])).toBe(70);
    const tariff = { SBP: { percentBp: 0, fixedKopecks: 0, minKopecks: 500 }, CARD: DEFAULT_TARIFF.CARD };
    expect(quoteCommission(10000, tariff, ["SBP", "CARD"])).toBe(500);
  });
});
