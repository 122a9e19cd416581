import { describe, expect, test } from "bun:test";
import { DomainError, ProviderCallback, type ProviderSessionRequest } from "@payaccept/contracts";
import { dueCallbacks } from "./callbacks/outbox.ts";
import { recordOutcome, type Outcome } from "./outcomes.ts";
import { refundSession } from "./refunds.ts";
import { cancelSession, cardTimeIsUp, openSession, sessionLinks } from "./sessions.ts";
import { freshDb, HOLD_TTL_MS, type TestDb } from "./test-db.ts";

const record = (db: TestDb, sessionId: string, outcome: Outcome, now: number) => recordOutcome(db, sessionId, outcome, now, HOLD_TTL_MS);

const request = (over: Partial<ProviderSessionRequest> = {}): ProviderSessionRequest => ({
  merchantPaymentId: "0190a0a0-0000-7000-8000-000000000001",
  method: "SBP",
  amountKopecks: 123456,
  description: "Coffee",
  returnUrl: "https://pay.example/pay/0190a0a0-0000-7000-8000-000000000001",
  callbackUrl: "https://payments.example/provider/callback",
  ...over,
});

const callbackBodies = (db: ReturnType<typeof freshDb>) => dueCallbacks(db, Number.MAX_SAFE_INTEGER, 100).map((c) => ProviderCallback.parse(JSON.parse(c.body)));

describe("openSession", () => {
  test("is idempotent by (merchantPaymentId, method) and separate per method", () => {
    const db = freshDb();
    const first = openSession(db, request(), 1);
    const again = openSession(db, request(), 2);
    const card = openSession(db, request({ method: "CARD" }), 3);
    expect(first.created).toBe(true);
    expect(again).toEqual({ session: first.session, created: false });
    expect(card.created).toBe(true);
    expect(card.session.id).not.toBe(first.session.id);
  });

  test("refuses a repeat that changes the amount", () => {
    const db = freshDb();
    openSession(db, request(), 1);
    expect(() => openSession(db, request({ amountKopecks: 100 }), 2)).toThrow(DomainError);
  });

  test("links: the SBP QR payload is the bank page, the card form posts to the card page", () => {
    const db = freshDb();
    const sbp = openSession(db, request(), 1).session;
    const card = openSession(db, request({ method: "CARD" }), 1).session;
    expect(sessionLinks(sbp, "http://acq.test")).toEqual({
      sessionId: sbp.id,
      method: "SBP",
      qrPayload: `http://acq.test/sbp/${sbp.id}`,
      deepLink: `http://acq.test/sbp/${sbp.id}`,
    });
    expect(sessionLinks(card, "http://acq.test")).toEqual({ sessionId: card.id, method: "CARD", formAction: `http://acq.test/card/${card.id}` });
  });
});

describe("cancelSession (a method switch)", () => {
  test("a canceled session takes no outcome; opening it again reopens it with the new deadline", () => {
    const db = freshDb();
    const s = openSession(db, request(), 1).session;
    record(db, s.id, { event: "DECLINED", reason: "declined_by_buyer" }, 2);
    expect(cancelSession(db, s.id).status).toBe("CANCELED");
    expect(cancelSession(db, s.id).status).toBe("CANCELED");
    // not even the late QR payment a declined SBP session otherwise allows
    expect(record(db, s.id, { event: "APPROVED" }, 3)).toEqual({ session: expect.objectContaining({ status: "CANCELED" }), callbackId: null });
    const reopened = openSession(db, request({ expiresAt: "2026-11-24T05:00:00.000Z" }), 4);
    expect(reopened).toMatchObject({ created: false, session: { id: s.id, status: "OPEN", declineReason: null, expiresAt: Date.parse("2026-11-24T05:00:00.000Z") } });
    expect(record(db, s.id, { event: "APPROVED" }, 5).callbackId).not.toBeNull();
  });

  test("a paid session cannot be canceled; an unknown one is not found", () => {
    const db = freshDb();
    const s = openSession(db, request(), 1).session;
    record(db, s.id, { event: "APPROVED" }, 2);
    expect(() => cancelSession(db, s.id)).toThrow("the session is already paid or its amount held");
    expect(() => cancelSession(db, "nope")).toThrow("session not found");
  });
});

describe("the card deadline", () => {
  test("a card session takes no outcome from its deadline on; an SBP QR still may be paid late", () => {
    const db = freshDb();
    const deadline = Date.parse("2026-11-24T05:00:00.000Z");
    const card = openSession(db, request({ method: "CARD", expiresAt: "2026-11-24T05:00:00.000Z" }), 1).session;
    const sbp = openSession(db, request({ expiresAt: "2026-11-24T05:00:00.000Z" }), 1).session;
    expect(cardTimeIsUp(card, deadline - 1)).toBe(false);
    expect(cardTimeIsUp(card, deadline)).toBe(true);
    expect(cardTimeIsUp(sbp, deadline + 60_000)).toBe(false);
    expect(record(db, card.id, { event: "APPROVED" }, deadline).callbackId).toBeNull();
    expect(record(db, card.id, { event: "CHALLENGE" }, deadline).session.status).toBe("OPEN");
    expect(record(db, sbp.id, { event: "APPROVED" }, deadline + 60_000).callbackId).not.toBeNull();
  });
});

describe("recordOutcome", () => {
  test("a payment writes exactly one PAID callback; paying again changes nothing", () => {
    const db = freshDb();
    const s = openSession(db, request(), 1).session;
    const paid = record(db, s.id, { event: "APPROVED" }, Date.UTC(2026, 10, 22, 10));
    const again = record(db, s.id, { event: "APPROVED" }, Date.UTC(2026, 10, 22, 11));
    expect(paid.session.status).toBe("PAID");
    expect(paid.callbackId).not.toBeNull();
    expect(again.callbackId).toBeNull();
    expect(callbackBodies(db)).toEqual([
      {
        callbackId: paid.callbackId!,
        sessionId: s.id,
        merchantPaymentId: s.merchantPaymentId,
        event: "PAID",
        paidAt: "2026-11-22T10:00:00.000Z",
        reason: null,
        amountKopecks: 123456,
        holdExpiresAt: null,
        savedMethod: null,
      },
    ]);
  });

  test("an SBP session declined by the buyer can still be paid later (late payment)", () => {
    const db = freshDb();
    const s = openSession(db, request(), 1).session;
    record(db, s.id, { event: "DECLINED", reason: "declined_by_buyer" }, 2);
    const late = record(db, s.id, { event: "APPROVED" }, 3);
    expect(late.session.status).toBe("PAID");
    expect(callbackBodies(db).map((b) => [b.event, b.reason])).toEqual([
      ["DECLINED", "declined_by_buyer"],
      ["PAID", null],
    ]);
  });

  test("a declined card session stays declined, and a paid one cannot be declined", () => {
    const db = freshDb();
    const card = openSession(db, request({ method: "CARD" }), 1).session;
    record(db, card.id, { event: "DECLINED", reason: "card_declined" }, 2);
    expect(record(db, card.id, { event: "APPROVED" }, 3)).toMatchObject({ callbackId: null, session: { status: "DECLINED" } });
    const sbp = openSession(db, request(), 1).session;
    record(db, sbp.id, { event: "APPROVED" }, 2);
    expect(record(db, sbp.id, { event: "DECLINED", reason: "card_declined" }, 3)).toMatchObject({ callbackId: null, session: { status: "PAID" } });
  });

  test("a 3-D Secure challenge is a card-only step without a callback", () => {
    const db = freshDb();
    const card = openSession(db, request({ method: "CARD" }), 1).session;
    const sbp = openSession(db, request(), 1).session;
    expect(record(db, card.id, { event: "CHALLENGE" }, 2)).toMatchObject({ callbackId: null, session: { status: "CHALLENGE" } });
    expect(record(db, sbp.id, { event: "CHALLENGE" }, 2).session.status).toBe("OPEN");
    expect(record(db, card.id, { event: "APPROVED" }, 3).session.status).toBe("PAID");
    expect(callbackBodies(db).map((b) => b.event)).toEqual(["PAID"]);
  });

  test("an unknown session is NOT_FOUND", () => {
    expect(() => record(freshDb(), "nope", { event: "APPROVED" }, 1)).toThrow("session not found");
  });
});

describe("refundSession", () => {
  const paidSession = () => {
    const db = freshDb();
    const s = openSession(db, request(), 1).session;
    record(db, s.id, { event: "APPROVED" }, 2);
    return { db, s };
  };
  const refund = (db: ReturnType<typeof freshDb>, sessionId: string, amountKopecks: number, merchantRefundId = Bun.randomUUIDv7()) =>
    refundSession(db, { sessionId, merchantRefundId, amountKopecks }, 3);

  test("is idempotent by the merchant's refund id: a repeat returns the first refund, whatever its amount", () => {
    const { db, s } = paidSession();
    const id = Bun.randomUUIDv7();
    const first = refund(db, s.id, 123456, id);
    expect(first.created).toBe(true);
    expect(first.refund.status).toBe("SUCCEEDED");
    expect(refund(db, s.id, 100, id)).toEqual({ refund: first.refund, created: false });
  });

  test("partial refunds add up to the paid amount, never more", () => {
    const { db, s } = paidSession();
    expect(refund(db, s.id, 100_000).refund.status).toBe("SUCCEEDED");
    expect(refund(db, s.id, 23_456).refund.status).toBe("SUCCEEDED");
    expect(() => refund(db, s.id, 1)).toThrow("amountKopecks exceeds what is left of the paid amount: 0");
  });

  test("an amount ending in 13 kopecks is declined, and a declined refund counts for nothing", () => {
    const { db, s } = paidSession();
    const declined = refund(db, s.id, 5_013).refund;
    expect(declined).toMatchObject({ status: "FAILED", reason: "refund_declined" });
    expect(refund(db, s.id, 123_456).refund.status).toBe("SUCCEEDED");
  });

  test("refuses an unpaid session and more than was paid", () => {
    const db = freshDb();
    const s = openSession(db, request(), 1).session;
    expect(() => refund(db, s.id, 100)).toThrow("only a paid session can be refunded");
    record(db, s.id, { event: "APPROVED" }, 2);
    expect(() => refund(db, s.id, 123457)).toThrow("exceeds what is left of the paid amount");
    expect(() => refund(db, "nope", 1)).toThrow("session not found");
  });
});
