import { describe, expect, test } from "bun:test";
import { PAYMENT_STATUSES, type PaymentStatus } from "@payaccept/contracts";
import { decide, isFinal, paidTrigger, TRANSITIONS, type PaymentTrigger } from "./state-machine.ts";

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
    expect(paidTrigger("SBP")).toBe("pay");
    expect(paidTrigger("CARD")).toBe("payInTime");
    for (const s of ["EXPIRED", "FAILED"] as const) {
      expect(decide(s, paidTrigger("SBP")).kind).toBe("move");
      expect(decide(s, paidTrigger("CARD"))).toEqual({ kind: "refused", status: s });
    }
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
