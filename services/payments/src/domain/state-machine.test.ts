import { describe, expect, test } from "bun:test";
import { PAYMENT_STATUSES, type PaymentStatus } from "@payaccept/contracts";
import {
  announces,
  authorizedTrigger,
  awaitsAuthentication,
  decide,
  decideRefund,
  decideStart,
  fullyRefunded,
  holdLapsed,
  isFinal,
  methodIsFixed,
  paidTooLate,
  paidTrigger,
  refundHasEnded,
  releaseTrigger,
  TRANSITIONS,
  type Settled,
  type Payable,
  type PaymentTrigger,
  type RefundDecision,
  type RefundState,
  type StartDecision,
} from "./state-machine.ts";

type TransitionKind = ReturnType<typeof decide>["kind"];

const settled = (status: PaymentStatus, method: Settled["method"], over: Partial<Settled> = {}): Settled => ({ status, method, failureCode: null, expiresAt: null, ...over });

const allowed: Array<[PaymentStatus, PaymentTrigger, PaymentStatus]> = [
  ["CREATED", "start", "PENDING"],
  ["CREATED", "cancel", "CANCELED"],
  ["CREATED", "expire", "EXPIRED"],
  ["PENDING", "switch", "PENDING"],
  ["PENDING", "pay", "SUCCESS"],
  ["PENDING", "payInTime", "SUCCESS"],
  ["PENDING", "decline", "FAILED"],
  ["PENDING", "expire", "EXPIRED"],
  ["EXPIRED", "pay", "SUCCESS"],
  ["FAILED", "pay", "SUCCESS"],
  ["SUCCESS", "refund", "REFUNDED"],
  ["PENDING", "authorize", "AUTHORIZED"],
  ["AUTHORIZED", "capture", "SUCCESS"],
  ["AUTHORIZED", "void", "CANCELED"],
  ["AUTHORIZED", "expireHold", "EXPIRED"],
  ["FAILED", "authenticate", "SUCCESS"],
  ["FAILED", "authenticateHold", "AUTHORIZED"],
  ["FAILED", "failAuthentication", "FAILED"],
];

describe("payment state machine", () => {
  test.each(allowed)("%s --%s--> %s", (from, trigger, to) => {
    expect(decide(from, trigger)).toEqual({ kind: "move", from, to });
  });

  test("every other pair is refused or a repeat, never a move", () => {
    const moves = new Set(allowed.map(([f, t]) => `${f}/${t}`));
    for (const status of PAYMENT_STATUSES) {
      for (const trigger of Object.keys(TRANSITIONS) as PaymentTrigger[]) {
        if (moves.has(`${status}/${trigger}`)) continue;
        const d = decide(status, trigger);
        expect(d.kind).not.toBe("move");
        expect(d.kind).toBe(status === TRANSITIONS[trigger].to ? "already" : "refused");
      }
    }
  });

  test("only an SBP QR may be paid late; a card's success needs a PENDING payment", () => {
    expect(paidTrigger(settled("PENDING", "SBP"))).toBe("pay");
    expect(paidTrigger(settled("PENDING", "CARD"))).toBe("payInTime");
    for (const s of ["EXPIRED", "FAILED"] as const) {
      expect(decide(s, paidTrigger(settled(s, "SBP"))).kind).toBe("move");
      expect(decide(s, paidTrigger(settled(s, "CARD")))).toEqual({ kind: "refused", status: s });
    }
  });

  test("a hold's money taken is its capture; a charge that waited for the buyer's confirmation is paid or held once confirmed", () => {
    expect(paidTrigger(settled("AUTHORIZED", "CARD"))).toBe("capture");
    const confirming = settled("FAILED", "CARD", { failureCode: "AUTHENTICATION_REQUIRED" });
    expect(awaitsAuthentication(confirming)).toBe(true);
    expect(paidTrigger(confirming)).toBe("authenticate");
    expect(authorizedTrigger(confirming)).toBe("authenticateHold");
    expect(authorizedTrigger(settled("PENDING", "CARD"))).toBe("authorize");
    // Any other decline of a charge is final: its card money would be returned (paidTooLate).
    const declined = settled("FAILED", "CARD", { failureCode: "INSUFFICIENT_FUNDS" });
    expect(awaitsAuthentication(declined)).toBe(false);
    expect(paidTooLate(paidTrigger(declined), "FAILED")).toBe(true);
  });

  test("a released hold is the merchant's void before its capture deadline, the deadline's expiry from it on", () => {
    const held = settled("AUTHORIZED", "CARD", { expiresAt: 10_000 });
    expect(releaseTrigger(held, 9_999)).toBe("void");
    expect(releaseTrigger(held, 10_000)).toBe("expireHold");
    expect(releaseTrigger(held, 5_000, true)).toBe("expireHold");
    expect([holdLapsed(held, 9_999), holdLapsed(held, 10_000), holdLapsed({ ...held, status: "SUCCESS" }, 10_000)]).toEqual([false, true, false]);
  });

  test("final statuses and AUTHORIZED are announced, each once: a FAILED charge staying FAILED is not", () => {
    expect(announces({ from: "PENDING", to: "AUTHORIZED" })).toBe(true);
    expect(announces({ from: "AUTHORIZED", to: "SUCCESS" })).toBe(true);
    expect(announces({ from: "FAILED", to: "FAILED" })).toBe(false);
    expect(announces({ from: "CREATED", to: "PENDING" })).toBe(false);
  });

  test("a repeated cancel is a repeat, not a second transition", () => {
    expect(decide("CANCELED", "cancel")).toEqual({ kind: "already", status: "CANCELED" });
  });

  test("cancel is refused once the buyer started paying or the payment is final", () => {
    for (const s of ["PENDING", "SUCCESS", "FAILED", "EXPIRED", "REFUNDED"] as const) {
      expect(decide(s, "cancel")).toEqual({ kind: "refused", status: s });
    }
  });

  test("a refunded payment cannot be paid again, a canceled one never", () => {
    expect(decide("REFUNDED", "pay").kind).toBe("refused");
    expect(decide("CANCELED", "pay").kind).toBe("refused");
  });

  test("no transition leaves REFUNDED or CANCELED", () => {
    for (const trigger of Object.keys(TRANSITIONS) as PaymentTrigger[]) {
      expect(decide("REFUNDED", trigger).kind).not.toBe("move");
      expect(decide("CANCELED", trigger).kind).not.toBe("move");
    }
  });

  test("final statuses are the ones that produce events", () => {
    expect(PAYMENT_STATUSES.filter(isFinal)).toEqual(["SUCCESS", "FAILED", "EXPIRED", "REFUNDED", "CANCELED"]);
  });
});

describe("the buyer's start or switch of method", () => {
  const NOW = 10_000;
  const payable = (over: Partial<Payable>): Payable => ({ status: "CREATED", method: null, methodFixed: false, expiresAt: NOW + 1, ...over });
  const table: Array<[string, Partial<Payable>, "SBP" | "CARD", StartDecision]> = [
    ["CREATED without a method starts", {}, "SBP", { kind: "move", trigger: "start" }],
    ["CREATED with the merchant's method starts with it", { method: "CARD", methodFixed: true }, "CARD", { kind: "move", trigger: "start" }],
    ["CREATED with the merchant's method refuses the other", { method: "CARD", methodFixed: true }, "SBP", { kind: "refused", why: "methodFixed", method: "CARD" }],
    ["CREATED with a method from before methodFixed existed keeps it", { method: "CARD" }, "SBP", { kind: "refused", why: "methodFixed", method: "CARD" }],
    ["PENDING with the same method is the current payment", { status: "PENDING", method: "SBP" }, "SBP", { kind: "current" }],
    ["PENDING with the other method switches", { status: "PENDING", method: "SBP" }, "CARD", { kind: "move", trigger: "switch" }],
    ["PENDING with a fixed method does not switch", { status: "PENDING", method: "CARD", methodFixed: true }, "SBP", { kind: "refused", why: "methodFixed", method: "CARD" }],
    ["past the deadline nothing starts", { expiresAt: NOW }, "SBP", { kind: "refused", why: "expired" }],
    ["past the deadline nothing switches", { status: "PENDING", method: "SBP", expiresAt: NOW }, "CARD", { kind: "refused", why: "expired" }],
    ...(["SUCCESS", "FAILED", "EXPIRED", "REFUNDED", "CANCELED"] as const).map(
      (status): [string, Partial<Payable>, "SBP" | "CARD", StartDecision] => [`${status} cannot be paid`, { status, method: "SBP" }, "CARD", { kind: "refused", why: "notPayable", status }],
    ),
  ];
  test.each(table)("%s", (_, over, method, expected) => {
    expect(decideStart(payable(over), method, NOW)).toEqual(expected);
  });

  test("the page offers only the fixed method: the merchant's, or one named at creation until the buyer starts", () => {
    expect(methodIsFixed(payable({ method: "CARD", methodFixed: true, status: "PENDING" }))).toBe(true);
    expect(methodIsFixed(payable({ method: "CARD" }))).toBe(true);
    expect(methodIsFixed(payable({ method: "CARD", status: "PENDING" }))).toBe(false);
    expect(methodIsFixed(payable({}))).toBe(false);
  });
});

describe("late payments and sandbox outcomes", () => {
  const late: Array<["SBP" | "CARD", PaymentStatus, TransitionKind, boolean]> = [
    ["SBP", "PENDING", "move", false],
    ["SBP", "EXPIRED", "move", false],
    ["SBP", "FAILED", "move", false],
    ["CARD", "PENDING", "move", false],
    ["CARD", "EXPIRED", "refused", true],
    ["CARD", "FAILED", "refused", true],
    ["CARD", "CANCELED", "refused", false],
    ["SBP", "CANCELED", "refused", false],
    ["CARD", "SUCCESS", "already", false],
  ];
  test.each(late)("%s paid when %s: %s, money returned: %p", (method, status, kind, returned) => {
    const trigger = paidTrigger(settled(status, method));
    expect(decide(status, trigger).kind).toBe(kind);
    expect(paidTooLate(trigger, status)).toBe(returned);
  });
});

describe("refunds", () => {
  const paid = (over: Partial<RefundState> = {}): RefundState => ({ status: "SUCCESS", amountKopecks: 10_000, refundedKopecks: 0, refundingKopecks: 0, ...over });
  const table: Array<[string, Partial<RefundState>, number | undefined, RefundDecision]> = [
    ["no amount: everything", {}, undefined, { kind: "refund", amountKopecks: 10_000 }],
    ["no amount: what is neither refunded nor being refunded", { refundedKopecks: 3_000, refundingKopecks: 2_000 }, undefined, { kind: "refund", amountKopecks: 5_000 }],
    ["exactly what is left", { refundedKopecks: 3_000 }, 7_000, { kind: "refund", amountKopecks: 7_000 }],
    ["a kopeck more than is left", { refundedKopecks: 3_000 }, 7_001, { kind: "refused", why: "exceeds", amountKopecks: 7_001, leftKopecks: 7_000 }],
    ["refunds in progress take their share", { refundingKopecks: 10_000 }, 1, { kind: "refused", why: "nothingLeft" }],
    ["a fully refunded payment", { status: "REFUNDED", refundedKopecks: 10_000 }, undefined, { kind: "refused", why: "notPaid", status: "REFUNDED" }],
    ...(["CREATED", "PENDING", "FAILED", "EXPIRED", "CANCELED"] as const).map(
      (status): [string, Partial<RefundState>, number | undefined, RefundDecision] => [`a ${status} payment`, { status }, 1, { kind: "refused", why: "notPaid", status }],
    ),
  ];
  test.each(table)("%s", (_, over, requested, expected) => {
    expect(decideRefund(paid(over), requested)).toEqual(expected);
  });

  test("the refund that completes the amount makes the payment REFUNDED; a refund ends once", () => {
    expect(fullyRefunded({ amountKopecks: 10_000, refundedKopecks: 10_000 })).toBe(true);
    expect(fullyRefunded({ amountKopecks: 10_000, refundedKopecks: 9_999 })).toBe(false);
    expect(decide("SUCCESS", "refund")).toEqual({ kind: "move", from: "SUCCESS", to: "REFUNDED" });
    expect([refundHasEnded("PENDING"), refundHasEnded("SUCCEEDED"), refundHasEnded("FAILED")]).toEqual([false, true, true]);
  });
});
