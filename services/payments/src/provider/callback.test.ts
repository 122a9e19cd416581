import { describe, expect, test } from "bun:test";
import { DomainError } from "@payaccept/contracts";
import { hmacSha256Hex } from "@payaccept/platform";
import { readProviderCallback } from "./callback.ts";
import { declineFailure, outcomeOf } from "./provider-reasons.ts";

const secret = "callback-secret";
const nowMs = 1_800_000_000_000;
const ts = String(nowMs / 1000);
const base = { callbackId: "c-1", sessionId: "s-1", merchantPaymentId: "0198f0c4-6c1e-7a3b-9d2e-4f5a6b7c8d9e", paidAt: null, reason: null };
const card = {
  methodId: "m-1",
  method: "CARD",
  status: "ACTIVE",
  card: { brand: "VISA", last4: "4242", expMonth: 12, expYear: 2030 },
  sbp: null,
  createdAt: "2026-11-24T09:00:00.000Z",
  revokedAt: null,
  revokedBy: null,
};

function read(body: unknown, signWith = secret) {
  const rawBody = JSON.stringify(body);
  return readProviderCallback({ secret, timestamp: ts, signature: hmacSha256Hex(signWith, `${ts}.${rawBody}`), rawBody, nowMs });
}
function refusal(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (e) {
    if (e instanceof DomainError) return e;
    throw e;
  }
  throw new Error("expected a refusal");
}

describe("readProviderCallback", () => {
  test("a PAID callback of the first protocol (no amount, no method) still reads", () => {
    const r = read({ ...base, event: "PAID", paidAt: "2026-11-24T09:00:00.000Z" });
    expect(r.known).toMatchObject({ event: "PAID", amountKopecks: null, savedMethod: null });
    expect(r.failure).toBeNull();
  });

  test("tokens, holds and revocations read with their fields; a decline carries the catalogue's reason", () => {
    expect(read({ ...base, event: "PAID", paidAt: "2026-11-24T09:00:00.000Z", amountKopecks: 500, savedMethod: card }).known?.savedMethod?.card?.last4).toBe("4242");
    expect(read({ ...base, event: "AUTHORIZED", amountKopecks: 500, holdExpiresAt: "2026-12-24T09:00:00.000Z" }).known).toMatchObject({ event: "AUTHORIZED", amountKopecks: 500 });
    expect(read({ ...base, event: "CAPTURED", amountKopecks: 300, paidAt: "2026-11-25T09:00:00.000Z" }).known?.event).toBe("CAPTURED");
    expect(read({ ...base, event: "VOIDED", reason: "hold_expired" }).known).toMatchObject({ event: "VOIDED", reason: "hold_expired" });
    expect(read({ ...base, event: "METHOD_REVOKED", reason: "method_revoked", savedMethod: { ...card, method: "SBP", card: null, sbp: { bankName: "Тестовый банк" }, status: "REVOKED", revokedBy: "PAYER", revokedAt: "2026-11-25T09:00:00.000Z" } }).known?.savedMethod).toMatchObject({ status: "REVOKED", revokedBy: "PAYER" });
    expect(read({ ...base, event: "DECLINED", reason: "insufficient_funds" }).failure).toEqual({ reason: "INSUFFICIENT_FUNDS", params: {} });
  });

  test("a known event without what it must carry is refused as malformed; an unknown event reads to be ignored", () => {
    expect(refusal(() => read({ ...base, event: "AUTHORIZED" })).reason).toBe("VALIDATION_FAILED");
    expect(refusal(() => read({ ...base, event: "BOUND" })).reason).toBe("VALIDATION_FAILED");
    expect(read({ ...base, event: "SOMETHING_NEW" })).toMatchObject({ known: null, failure: null });
  });

  test("a signature that does not verify, and a body that is not JSON, are refused", () => {
    expect(refusal(() => read({ ...base, event: "PAID" }, "other")).reason).toBe("CALLBACK_SIGNATURE_INVALID");
    const rawBody = "{not json";
    expect(refusal(() => readProviderCallback({ secret, timestamp: ts, signature: hmacSha256Hex(secret, `${ts}.${rawBody}`), rawBody, nowMs })).reason).toBe("MALFORMED_JSON");
  });
});

describe("the acquirer's reasons in the catalogue's terms", () => {
  test("each known decline maps to its reason; an unknown one is PROVIDER_DECLINED naming it", () => {
    expect(["insufficient_funds", "card_expired", "method_revoked", "card_declined", "3ds_failed", "declined_by_buyer", "declined_by_payer"].map((r) => declineFailure(r).reason)).toEqual([
      "INSUFFICIENT_FUNDS",
      "CARD_EXPIRED",
      "METHOD_REVOKED",
      "CARD_DECLINED",
      "AUTHENTICATION_FAILED",
      "DECLINED_BY_BUYER",
      "DECLINED_BY_BUYER",
    ]);
    expect(declineFailure("do_not_honor")).toEqual({ reason: "PROVIDER_DECLINED", params: { detail: "do_not_honor" } });
  });

  test("a session waiting for the buyer's authentication is AUTHENTICATION_REQUIRED; a paid one has no failure", () => {
    const state = { sessionId: "s", merchantPaymentId: "p", kind: "CHARGE", method: "CARD", amountKopecks: 1, capturedKopecks: null, hold: false, holdExpiresAt: null, paidAt: null, reason: null, authenticationUrl: "http://acq/card/s/3ds", savedMethod: null } as const;
    expect(outcomeOf({ ...state, status: "CHALLENGE" }).failure).toEqual({ reason: "AUTHENTICATION_REQUIRED", params: {} });
    expect(outcomeOf({ ...state, status: "PAID", capturedKopecks: 1 }).failure).toBeNull();
  });
});
