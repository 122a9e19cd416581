import { expect, test } from "bun:test";
import { DomainError, rublesAndKopecks } from "@payaccept/contracts";
import { balanceShare, refundAmount, type RefundablePayment } from "./refund-rules.ts";

const paid = (over: Partial<RefundablePayment> = {}): RefundablePayment => ({
  status: "SUCCESS",
  amountKopecks: 100_000,
  commissionKopecks: 3_500,
  refundedKopecks: 0,
  refundingKopecks: 0,
  ...over,
});

const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    if (e instanceof DomainError) return { code: e.code, reason: e.reason, params: e.params, message: e.message };
  }
  throw new Error("expected a DomainError");
};

test("amounts in errors read in rubles and kopecks", () => {
  expect(rublesAndKopecks(150_050)).toBe("1500.50 RUB (150050 kopecks)");
  expect(rublesAndKopecks(7)).toBe("0.07 RUB (7 kopecks)");
});

test("without an amount the refund is of everything left, refunds in progress included in what is taken", () => {
  expect(refundAmount(paid(), undefined)).toBe(100_000);
  expect(refundAmount(paid({ refundedKopecks: 30_000, refundingKopecks: 20_000 }), undefined)).toBe(50_000);
  expect(refundAmount(paid({ refundedKopecks: 30_000 }), 70_000)).toBe(70_000);
});

test("above what is left, or nothing left, or not SUCCESS: CONFLICT with the reason and its amounts", () => {
  expect(refusal(() => refundAmount(paid({ refundedKopecks: 60_000, refundingKopecks: 10_000 }), 40_000))).toEqual({
    code: "CONFLICT",
    reason: "REFUND_EXCEEDS_REFUNDABLE",
    params: { refundKopecks: 40_000, refundableKopecks: 30_000, paymentKopecks: 100_000, refundingKopecks: 10_000 },
    message:
      "refund of 400.00 RUB (40000 kopecks) exceeds what is left to refund, 300.00 RUB (30000 kopecks) of 1000.00 RUB (100000 kopecks); 100.00 RUB (10000 kopecks) are in refunds still in progress",
  });
  expect(refusal(() => refundAmount(paid({ refundedKopecks: 50_000, refundingKopecks: 50_000 }), undefined))).toMatchObject({
    reason: "REFUND_NOTHING_LEFT",
    params: { refundedKopecks: 50_000, refundingKopecks: 50_000 },
  });
  expect(refusal(() => refundAmount(paid({ status: "REFUNDED", refundedKopecks: 100_000 }), 1)).reason).toBe("REFUND_ALREADY_FULL");
  expect(refusal(() => refundAmount(paid({ status: "PENDING" }), 1))).toMatchObject({ reason: "REFUND_NOT_SUCCESS", params: { status: "PENDING" } });
});

test("a partial refund takes its share of the net receipt, rounded down; the last one takes the rest", () => {
  // net = 96 500: a third of the amount takes a third of the net, rounded down.
  expect(balanceShare(paid(), 33_333, 0)).toBe(32_166);
  const second = balanceShare(paid({ refundedKopecks: 33_333 }), 33_333, 32_166);
  expect(second).toBe(32_166);
  const last = balanceShare(paid({ refundedKopecks: 66_666 }), 33_334, 64_332);
  expect(32_166 + second + last).toBe(96_500);
  // A whole refund takes the whole net, as before partial refunds.
  expect(balanceShare(paid(), 100_000, 0)).toBe(96_500);
});

test("a commission at or above the amount credited nothing, so its refunds take nothing", () => {
  expect(balanceShare(paid({ amountKopecks: 100, commissionKopecks: 150 }), 50, 0)).toBe(0);
  expect(balanceShare(paid({ amountKopecks: 100, commissionKopecks: 150 }), 100, 0)).toBe(0);
});

test("the largest amounts are exact", () => {
  const big = paid({ amountKopecks: 10_000_000_000, commissionKopecks: 1 });
  expect(balanceShare(big, 9_999_999_999, 0)).toBe(9_999_999_998);
});
