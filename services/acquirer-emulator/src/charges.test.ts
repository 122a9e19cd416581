import { describe, expect, test } from "bun:test";
import { ProviderCallback, type ProviderChargeRequest } from "@payaccept/contracts";
import { dueCallbacks } from "./callbacks/outbox.ts";
import { charge } from "./charges.ts";
import { findMethod, methodView, revokeByMerchant } from "./methods.ts";
import { recordOutcome } from "./outcomes.ts";
import { openBinding, openSession } from "./sessions.ts";
import type { CardOnFile } from "./store/schema.ts";
import { freshDb, HOLD_TTL_MS, type TestDb } from "./test-db.ts";
import type { ChargeProfile } from "./test-cards.ts";

const NOW = Date.UTC(2026, 10, 24, 9);

/** A token saved by paying with a card of this profile, as the card form does. */
function savedCard(db: TestDb, profile: ChargeProfile, expiry: Partial<CardOnFile> = {}): string {
  const s = openSession(db, { merchantPaymentId: Bun.randomUUIDv7(), method: "CARD", amountKopecks: 100, description: null, returnUrl: "https://pay.example/p", callbackUrl: "https://payments.example/cb", saveMethod: true }, NOW).session;
  const card: CardOnFile = { brand: "VISA", last4: "0000", expMonth: 12, expYear: 2030, profile, ...expiry };
  return recordOutcome(db, s.id, { event: "APPROVED", card }, NOW, HOLD_TTL_MS).session.methodId!;
}

function savedBinding(db: TestDb): string {
  const s = openBinding(db, { bindingId: Bun.randomUUIDv7(), description: null, returnUrl: "https://pay.example/b", callbackUrl: "https://payments.example/cb" }, NOW).session;
  return recordOutcome(db, s.id, { event: "BOUND", payerId: crypto.randomUUID() }, NOW, HOLD_TTL_MS).session.methodId!;
}

const chargeOf = (methodId: string, over: Partial<ProviderChargeRequest> = {}): ProviderChargeRequest => ({
  chargeId: Bun.randomUUIDv7(),
  methodId,
  amountKopecks: 99_000,
  description: "Подписка, декабрь",
  returnUrl: "https://pay.example/pay/c",
  callbackUrl: "https://payments.example/cb",
  ...over,
});
const run = (db: TestDb, req: ProviderChargeRequest, now = NOW) => charge(db, req, now, HOLD_TTL_MS);
const callbacksOf = (db: TestDb, sessionId: string) =>
  dueCallbacks(db, Number.MAX_SAFE_INTEGER, 100)
    .filter((c) => c.sessionId === sessionId)
    .map((c) => ProviderCallback.parse(JSON.parse(c.body)));

describe("charges with a saved method", () => {
  test("each test card's rule decides; every decision but authentication writes its callback with the charge", () => {
    const db = freshDb();
    const outcomes = (["approve", "insufficient_funds", "expired", "revoked", "authenticate", "drop"] as const).map((profile) => {
      const { session, dropAnswer } = run(db, chargeOf(savedCard(db, profile)));
      return [profile, session.status, session.declineReason, dropAnswer, callbacksOf(db, session.id).map((b) => b.event)];
    });
    expect(outcomes).toEqual([
      ["approve", "PAID", null, false, ["PAID"]],
      ["insufficient_funds", "DECLINED", "insufficient_funds", false, ["DECLINED"]],
      ["expired", "DECLINED", "card_expired", false, ["DECLINED"]],
      ["revoked", "DECLINED", "method_revoked", false, ["DECLINED"]],
      ["authenticate", "CHALLENGE", null, false, []],
      ["drop", "PAID", null, true, ["PAID"]],
    ]);
  });

  test("the issuer's word sticks: a card reported expired or revoked stays so on the method", () => {
    const db = freshDb();
    const expired = savedCard(db, "expired");
    const revoked = savedCard(db, "revoked");
    run(db, chargeOf(expired));
    run(db, chargeOf(revoked));
    expect(methodView(findMethod(db, expired)!, NOW).status).toBe("EXPIRED");
    expect(methodView(findMethod(db, revoked)!, NOW)).toMatchObject({ status: "REVOKED", revokedBy: "ISSUER" });
  });

  test("is idempotent by chargeId: a repeat returns the charge as it is and never charges twice", () => {
    const db = freshDb();
    const req = chargeOf(savedCard(db, "approve"));
    const first = run(db, req);
    const again = run(db, req, NOW + 1000);
    expect(first).toMatchObject({ created: true });
    expect(again).toEqual({ session: first.session, created: false, callbackId: null, dropAnswer: false });
    expect(callbacksOf(db, first.session.id)).toHaveLength(1);
  });

  test("a repeat that names another method, amount or mode is refused, and so is an id a buyer's session holds", () => {
    const db = freshDb();
    const req = chargeOf(savedCard(db, "approve"));
    run(db, req);
    expect(() => run(db, { ...req, amountKopecks: 1 })).toThrow("a session with this id exists with another amountKopecks");
    expect(() => run(db, { ...req, methodId: savedCard(db, "approve") })).toThrow("another methodId");
    expect(() => run(db, { ...req, hold: true })).toThrow("another hold");
    const paymentId = Bun.randomUUIDv7();
    openSession(db, { merchantPaymentId: paymentId, method: "CARD", amountKopecks: 100, description: null, returnUrl: "https://p.example", callbackUrl: "https://c.example" }, NOW);
    expect(() => run(db, chargeOf(savedCard(db, "approve"), { chargeId: paymentId }))).toThrow("another kind");
  });

  test("a method revoked by the merchant, or a card past its expiry, is declined; an unknown one is not found", () => {
    const db = freshDb();
    const revoked = savedCard(db, "approve");
    revokeByMerchant(db, revoked, NOW);
    expect(run(db, chargeOf(revoked)).session.declineReason).toBe("method_revoked");
    const old = savedCard(db, "approve", { expMonth: 11, expYear: 2026 });
    expect(run(db, chargeOf(old), Date.UTC(2026, 11, 1)).session.declineReason).toBe("card_expired");
    expect(() => run(db, chargeOf("nope"))).toThrow("saved method not found");
  });

  test("SBP: a binding is charged without the payer; 51 kopecks at the end finds too little money; no hold", () => {
    const db = freshDb();
    const binding = savedBinding(db);
    expect(run(db, chargeOf(binding)).session).toMatchObject({ method: "SBP", status: "PAID", capturedKopecks: 99_000 });
    expect(run(db, chargeOf(binding, { amountKopecks: 10_051 })).session.declineReason).toBe("insufficient_funds");
    expect(() => run(db, chargeOf(binding, { hold: true }))).toThrow("SBP payments cannot be held");
  });

  test("authentication: the buyer's passing code completes the charge and the callback reports it", () => {
    const db = freshDb();
    const { session } = run(db, chargeOf(savedCard(db, "authenticate")));
    expect(session.status).toBe("CHALLENGE");
    recordOutcome(db, session.id, { event: "APPROVED" }, NOW + 1, HOLD_TTL_MS);
    expect(callbacksOf(db, session.id).map((b) => [b.event, b.amountKopecks])).toEqual([["PAID", 99_000]]);
  });

  test("a held charge is AUTHORIZED with the acquirer's deadline", () => {
    const db = freshDb();
    const { session } = run(db, chargeOf(savedCard(db, "approve"), { hold: true }));
    expect(session).toMatchObject({ status: "AUTHORIZED", holdExpiresAt: NOW + HOLD_TTL_MS, capturedKopecks: null });
    expect(callbacksOf(db, session.id).map((b) => [b.event, b.amountKopecks, b.holdExpiresAt])).toEqual([["AUTHORIZED", 99_000, new Date(NOW + HOLD_TTL_MS).toISOString()]]);
  });
});
