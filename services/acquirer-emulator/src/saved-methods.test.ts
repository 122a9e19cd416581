import { describe, expect, test } from "bun:test";
import { ProviderCallback, type ProviderSessionRequest } from "@payaccept/contracts";
import { dueCallbacks } from "./callbacks/outbox.ts";
import { bindingsOf, findMethod, methodView, revokeByMerchant, revokeByPayer } from "./methods.ts";
import { recordOutcome, type Outcome } from "./outcomes.ts";
import { openBinding, openSession, sessionState } from "./sessions.ts";
import type { CardOnFile } from "./store/schema.ts";
import { freshDb, HOLD_TTL_MS, type TestDb } from "./test-db.ts";

const request = (over: Partial<ProviderSessionRequest> = {}): ProviderSessionRequest => ({
  merchantPaymentId: Bun.randomUUIDv7(),
  method: "CARD",
  amountKopecks: 99_000,
  description: "Подписка на чай",
  returnUrl: "https://pay.example/pay/x",
  callbackUrl: "https://payments.example/provider/callback",
  merchantName: "Чайный клуб",
  ...over,
});
const visa: CardOnFile = { brand: "VISA", last4: "1111", expMonth: 12, expYear: 2030, profile: "approve" };
const record = (db: TestDb, id: string, outcome: Outcome, now = Date.UTC(2026, 10, 24)) => recordOutcome(db, id, outcome, now, HOLD_TTL_MS);
const bodies = (db: TestDb) => dueCallbacks(db, Number.MAX_SAFE_INTEGER, 100).map((c) => ProviderCallback.parse(JSON.parse(c.body)));

describe("card tokens", () => {
  test("a card paid with the save flag yields a token with a safe description, reported in the PAID callback", () => {
    const db = freshDb();
    const s = openSession(db, request({ saveMethod: true }), 1).session;
    const paid = record(db, s.id, { event: "APPROVED", card: visa });
    expect(paid.session.methodId).not.toBeNull();
    const [cb] = bodies(db);
    expect(cb!.savedMethod).toEqual({
      methodId: paid.session.methodId!,
      method: "CARD",
      status: "ACTIVE",
      card: { brand: "VISA", last4: "1111", expMonth: 12, expYear: 2030 },
      sbp: null,
      createdAt: new Date(Date.UTC(2026, 10, 24)).toISOString(),
      revokedAt: null,
      revokedBy: null,
    });
    expect(sessionState(db, paid.session, "http://acq.test", Date.UTC(2026, 10, 24)).savedMethod).toEqual(cb!.savedMethod);
  });

  test("without the flag nothing is saved, whatever the form carried", () => {
    const db = freshDb();
    const s = openSession(db, request(), 1).session;
    expect(record(db, s.id, { event: "APPROVED", card: visa }).session.methodId).toBeNull();
    expect(bodies(db)[0]!.savedMethod).toBeNull();
  });

  test("a 3-D Secure card keeps only its description between the steps, and is saved once the code passes", () => {
    const db = freshDb();
    const s = openSession(db, request({ saveMethod: true }), 1).session;
    expect(record(db, s.id, { event: "CHALLENGE", card: visa }).session.pendingCard).toEqual(visa);
    const paid = record(db, s.id, { event: "APPROVED" }).session;
    expect(paid.pendingCard).toBeNull();
    expect(findMethod(db, paid.methodId!)).toMatchObject({ cardLast4: "1111", profile: "approve" });
  });

  test("a repeat of an open session sets the save flag anew (the buyer changed their mind); a paid one keeps it", () => {
    const db = freshDb();
    const req = request({ saveMethod: true });
    openSession(db, req, 1);
    expect(openSession(db, { ...req, saveMethod: false }, 2).session.saveMethod).toBe(false);
    const s = openSession(db, req, 3).session;
    record(db, s.id, { event: "APPROVED", card: visa });
    expect(openSession(db, { ...req, saveMethod: false }, 4).session.saveMethod).toBe(true);
  });

  test("a token is EXPIRED from the first day after its card's expiry month; the merchant's revoke is idempotent", () => {
    const db = freshDb();
    const s = openSession(db, request({ saveMethod: true }), 1).session;
    const id = record(db, s.id, { event: "APPROVED", card: { ...visa, expMonth: 11, expYear: 2026 } }).session.methodId!;
    const row = findMethod(db, id)!;
    expect(methodView(row, Date.UTC(2026, 10, 30, 23, 59)).status).toBe("ACTIVE");
    expect(methodView(row, Date.UTC(2026, 11, 1)).status).toBe("EXPIRED");
    const revoked = revokeByMerchant(db, id, 5);
    expect(methodView(revoked, 6)).toMatchObject({ status: "REVOKED", revokedBy: "MERCHANT", revokedAt: new Date(5).toISOString() });
    expect(revokeByMerchant(db, id, 7)).toEqual(revoked);
    expect(() => revokeByMerchant(db, "nope", 1)).toThrow("saved method not found");
  });
});

describe("SBP bindings", () => {
  test("pay and bind: the payer's consent saves the account; paying without binding saves nothing", () => {
    const db = freshDb();
    const bound = openSession(db, request({ method: "SBP", saveMethod: true }), 1).session;
    const plain = openSession(db, request({ method: "SBP", saveMethod: true }), 1).session;
    const payer = crypto.randomUUID();
    const paid = record(db, bound.id, { event: "APPROVED", bindPayer: payer }).session;
    expect(record(db, plain.id, { event: "APPROVED" }).session.methodId).toBeNull();
    expect(bodies(db).map((b) => [b.event, b.savedMethod?.method ?? null, b.savedMethod?.sbp?.bankName ?? null])).toEqual([
      ["PAID", "SBP", "Тестовый банк"],
      ["PAID", null, null],
    ]);
    expect(bindingsOf(db, payer).map((m) => [m.id, m.merchantName])).toEqual([[paid.methodId!, "Чайный клуб"]]);
  });

  test("a binding without payment: idempotent by bindingId, BOUND with the method, or DECLINED and still possible later", () => {
    const db = freshDb();
    const req = { bindingId: Bun.randomUUIDv7(), merchantName: "Чайный клуб", description: null, returnUrl: "https://pay.example/b", callbackUrl: "https://payments.example/cb" };
    const first = openBinding(db, req, 1);
    expect(first.session).toMatchObject({ kind: "BINDING", method: "SBP", amountKopecks: 0, status: "OPEN" });
    expect(openBinding(db, req, 2)).toEqual({ session: first.session, created: false });
    record(db, first.session.id, { event: "DECLINED", reason: "declined_by_payer" });
    // a binding takes no payment
    expect(record(db, first.session.id, { event: "APPROVED" }).callbackId).toBeNull();
    const bound = record(db, first.session.id, { event: "BOUND", payerId: crypto.randomUUID() });
    expect(bound.session.status).toBe("BOUND");
    expect(bodies(db).map((b) => [b.event, b.reason, b.savedMethod?.methodId ?? null])).toEqual([
      ["DECLINED", "declined_by_payer", null],
      ["BOUND", null, bound.session.methodId],
    ]);
    // a payment session takes no binding outcome
    const payment = openSession(db, request({ method: "SBP" }), 1).session;
    expect(record(db, payment.id, { event: "BOUND", payerId: crypto.randomUUID() }).callbackId).toBeNull();
  });

  test("only the payer who gave a binding revokes it, once, with a METHOD_REVOKED callback to the session that made it", () => {
    const db = freshDb();
    const s = openBinding(db, { bindingId: Bun.randomUUIDv7(), description: null, returnUrl: "https://pay.example/b", callbackUrl: "https://payments.example/cb" }, 1).session;
    const payer = crypto.randomUUID();
    const methodId = record(db, s.id, { event: "BOUND", payerId: payer }).session.methodId!;
    expect(revokeByPayer(db, methodId, crypto.randomUUID(), 2)).toBeNull();
    const done = revokeByPayer(db, methodId, payer, 3)!;
    expect(done.callbackId).not.toBeNull();
    expect(revokeByPayer(db, methodId, payer, 4)!.callbackId).toBeNull();
    const revoked = bodies(db).filter((b) => b.event === "METHOD_REVOKED");
    expect(revoked).toHaveLength(1);
    expect(revoked[0]).toMatchObject({ sessionId: s.id, merchantPaymentId: s.merchantPaymentId, reason: "method_revoked", savedMethod: { methodId, status: "REVOKED", revokedBy: "PAYER" } });
  });
});
