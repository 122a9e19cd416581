import { describe, expect, test } from "bun:test";
import { ProviderCallback } from "@payaccept/contracts";
import { dueCallbacks } from "./callbacks/outbox.ts";
import { captureHold, expireDueHolds, voidHold } from "./holds.ts";
import { recordOutcome } from "./outcomes.ts";
import { refundSession } from "./refunds.ts";
import { findSession, openSession } from "./sessions.ts";
import { freshDb, HOLD_TTL_MS, type TestDb } from "./test-db.ts";

const NOW = Date.UTC(2026, 10, 24, 9);
const HELD = 250_000;

function heldSession(db: TestDb) {
  const s = openSession(db, { merchantPaymentId: Bun.randomUUIDv7(), method: "CARD", amountKopecks: HELD, description: "Доставка", returnUrl: "https://pay.example/p", callbackUrl: "https://payments.example/cb", hold: true }, NOW).session;
  return recordOutcome(db, s.id, { event: "APPROVED" }, NOW, HOLD_TTL_MS).session;
}
const events = (db: TestDb, sessionId: string) =>
  dueCallbacks(db, Number.MAX_SAFE_INTEGER, 100)
    .filter((c) => c.sessionId === sessionId)
    .map((c) => ProviderCallback.parse(JSON.parse(c.body)))
    .map((b) => [b.event, b.amountKopecks ?? b.reason]);

describe("holds", () => {
  test("a held card is AUTHORIZED with the acquirer's deadline; SBP refuses holds", () => {
    const db = freshDb();
    const s = heldSession(db);
    expect(s).toMatchObject({ status: "AUTHORIZED", holdExpiresAt: NOW + HOLD_TTL_MS, paidAt: null, capturedKopecks: null });
    expect(events(db, s.id)).toEqual([["AUTHORIZED", HELD]]);
    expect(() =>
      openSession(db, { merchantPaymentId: Bun.randomUUIDv7(), method: "SBP", amountKopecks: 100, description: null, returnUrl: "https://p.example", callbackUrl: "https://c.example", hold: true }, NOW),
    ).toThrow("SBP payments cannot be held: two-stage payments are for cards only");
  });

  test("a partial capture takes part and releases the rest; a repeat answers the same, another amount is refused", () => {
    const db = freshDb();
    const s = heldSession(db);
    expect(() => captureHold(db, s.id, HELD + 1, NOW + 1)).toThrow("amountKopecks exceeds the amount held: 2500.00 RUB");
    const captured = captureHold(db, s.id, 180_000, NOW + 2);
    expect(captured).toMatchObject({ status: "PAID", capturedKopecks: 180_000, paidAt: NOW + 2 });
    expect(captureHold(db, s.id, 180_000, NOW + 3)).toEqual(captured);
    expect(captureHold(db, s.id, undefined, NOW + 3)).toEqual(captured);
    expect(() => captureHold(db, s.id, 1000, NOW + 3)).toThrow("the hold was already captured");
    expect(() => voidHold(db, s.id, NOW + 3)).toThrow("the hold was already captured");
    expect(events(db, s.id)).toEqual([
      ["AUTHORIZED", HELD],
      ["CAPTURED", 180_000],
    ]);
    // refunds are of what was captured only
    expect(() => refundSession(db, { sessionId: s.id, merchantRefundId: Bun.randomUUIDv7(), amountKopecks: 180_001 }, NOW + 4)).toThrow("1800.00 RUB");
    expect(refundSession(db, { sessionId: s.id, merchantRefundId: Bun.randomUUIDv7(), amountKopecks: 180_000 }, NOW + 4).refund.status).toBe("SUCCEEDED");
  });

  test("no amount captures all of it", () => {
    const db = freshDb();
    expect(captureHold(db, heldSession(db).id, undefined, NOW + 1).capturedKopecks).toBe(HELD);
  });

  test("a void releases the hold once; a repeat answers the same; nothing can be captured after it", () => {
    const db = freshDb();
    const s = heldSession(db);
    const voided = voidHold(db, s.id, NOW + 1);
    expect(voided).toMatchObject({ status: "VOIDED", declineReason: "voided_by_merchant" });
    expect(voidHold(db, s.id, NOW + 2)).toEqual(voided);
    expect(() => captureHold(db, s.id, undefined, NOW + 2)).toThrow("the hold was released (voided_by_merchant)");
    expect(events(db, s.id)).toEqual([
      ["AUTHORIZED", HELD],
      ["VOIDED", "voided_by_merchant"],
    ]);
  });

  test("a session that is not a hold, or not held yet, cannot be captured or voided", () => {
    const db = freshDb();
    const plain = openSession(db, { merchantPaymentId: Bun.randomUUIDv7(), method: "CARD", amountKopecks: 100, description: null, returnUrl: "https://p.example", callbackUrl: "https://c.example" }, NOW).session;
    expect(() => captureHold(db, plain.id, undefined, NOW)).toThrow("the session is not a hold");
    const open = openSession(db, { merchantPaymentId: Bun.randomUUIDv7(), method: "CARD", amountKopecks: 100, description: null, returnUrl: "https://p.example", callbackUrl: "https://c.example", hold: true }, NOW).session;
    expect(() => voidHold(db, open.id, NOW)).toThrow("the session is OPEN: no amount is held yet");
    expect(() => voidHold(db, "nope", NOW)).toThrow("session not found");
  });

  test("at the acquirer's deadline the hold is voided by itself, also when a capture comes first to find it late", () => {
    const db = freshDb();
    const swept = heldSession(db);
    const late = heldSession(db);
    const deadline = NOW + HOLD_TTL_MS;
    expect(expireDueHolds(db, deadline - 1, 10)).toBe(0);
    // the capture finds the deadline passed before the sweeper: it voids and refuses, and the void is kept
    expect(() => captureHold(db, late.id, undefined, deadline)).toThrow("the hold was released (hold_expired)");
    expect(findSession(db, late.id)!.status).toBe("VOIDED");
    expect(expireDueHolds(db, deadline, 10)).toBe(1);
    expect(voidHold(db, swept.id, deadline + 1)).toMatchObject({ status: "VOIDED", declineReason: "hold_expired" });
    for (const s of [swept, late])
      expect(events(db, s.id)).toEqual([
        ["AUTHORIZED", HELD],
        ["VOIDED", "hold_expired"],
      ]);
  });
});
