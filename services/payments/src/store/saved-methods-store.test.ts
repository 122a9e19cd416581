import { afterEach, describe, expect, test } from "bun:test";
import { PaymentEvent } from "@payaccept/contracts";
import { ENGINES, storesPerFile, type Engine } from "../../../../tests/harness/engines.ts";
import { newPayment } from "../../test-support/new-payment.ts";
import { newSavedMethod, savedOnPayment } from "../domain/saved-methods.ts";
import { openPaymentsStore } from "./open-payments-store.ts";
import type { EndedMethod, OutboxRow, PaymentsStore } from "./payments-store.ts";

/**
 * The store's side of saved methods, charges and holds (docs/payments.md, issue 18), on both
 * engines: a method saved with its payment's move, ended once with its event; the shop's list;
 * the card and charge sweepers' due rows and claims; AUTHORIZED announced, a FAILED charge staying
 * FAILED not.
 */
const stores = storesPerFile();
const opened: PaymentsStore[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});

async function open(engine: Engine): Promise<PaymentsStore & { methodsEnded: EndedMethod[] }> {
  const methodsEnded: EndedMethod[] = [];
  const store = await openPaymentsStore(await stores.next(engine, "payments.db"), { onCommitted: () => {}, onEnded: () => {}, onMethodEnded: (e) => methodsEnded.push(e) });
  opened.push(store);
  return { ...store, methodsEnded };
}
const unpublished = (s: PaymentsStore): Promise<OutboxRow[]> => s.outbox.round(1000, async () => []);
const TTL = 60_000;
const card = { method: "CARD" as const, card: { brand: "VISA" as const, last4: "4242", expMonth: 2, expYear: 2027 }, sbp: null };

describe.each(ENGINES)("saved methods, charges and holds in the store (%s)", (engine) => {
  test("the connector a session was opened at is kept with the payment and the method it saves (docs/connectors.md)", async () => {
    const s = await open(engine);
    const p = await s.payments.insert({ ...newPayment("A", "tbank"), saveMethod: true }, 1000, TTL);
    expect(p.connector).toBeNull();
    const started = (await s.payments.transition(p.id, "start", 1100, { patch: () => ({ method: "CARD", connector: "tbank", providerSessionId: "700123" }) }))!.row;
    expect(started).toMatchObject({ connector: "tbank", providerSessionId: "700123" });
    const saved = newSavedMethod(started, card, "card:c:1:2", 1200);
    await s.payments.transition(p.id, "payInTime", 1200, { savedMethod: saved, patch: () => ({ paidAt: 1200, ...savedOnPayment(saved) }) });
    expect(await s.methods.byProviderId("card:c:1:2")).toMatchObject({ id: saved.id, connector: "tbank" });
    expect((await s.payments.byId(p.id))!.connector).toBe("tbank");
  });

  test("a method is saved with its payment's SUCCESS, once; it ends once, with its event under the saving payment", async () => {
    const s = await open(engine);
    const p = await s.payments.insert({ ...newPayment("A", "save"), saveMethod: true, customerId: "c-1" }, 1000, TTL);
    await s.payments.transition(p.id, "start", 1100, { patch: () => ({ method: "CARD" }) });
    const saved = newSavedMethod(p, card, "tok-1", 1200);
    const paid = (await s.payments.transition(p.id, "payInTime", 1200, { savedMethod: saved, patch: () => ({ paidAt: 1200, ...savedOnPayment(saved) }) }))!;
    expect(paid.row).toMatchObject({ status: "SUCCESS", savedMethodId: saved.id, paymentMethod: { id: saved.id, method: "CARD", card: card.card } });
    // a repeated PAID saves nothing twice: the move does not happen again
    expect((await s.payments.transition(p.id, "payInTime", 1300, { savedMethod: newSavedMethod(p, card, "tok-1", 1300) }))!.decision.kind).toBe("already");
    const method = (await s.methods.byProviderId("tok-1"))!;
    expect(method).toMatchObject({ id: saved.id, status: "ACTIVE", customerId: "c-1", paymentId: p.id, expiresAt: Date.UTC(2027, 2, 1) });

    const ended = await s.methods.end(saved.id, { status: "REVOKED", revokedBy: "PAYER", notify: true }, 5000);
    expect(ended).toMatchObject({ ended: true, method: { status: "REVOKED", revokedBy: "PAYER", deactivatedAt: 5000, expiresAt: null } });
    expect(await s.methods.end(saved.id, { status: "EXPIRED", revokedBy: null, notify: true }, 6000)).toMatchObject({ ended: false, method: { status: "REVOKED" } });
    expect(s.methodsEnded.map((e) => e.event)).toEqual(["PAYMENT_METHOD_REVOKED"]);
    const events = (await unpublished(s)).map((r) => PaymentEvent.parse(JSON.parse(r.payload)));
    expect(events.map((e) => [e.paymentId, e.status])).toEqual([
      [p.id, "SUCCESS"],
      [p.id, "PAYMENT_METHOD_REVOKED"],
    ]);
    expect(events[1]).toMatchObject({ previousStatus: "SUCCESS", extras: { customerId: "c-1", savePaymentMethod: true, paymentMethod: { id: saved.id, status: "REVOKED", revokedBy: "PAYER" } } });
    // the shop's own revocation ends a method without an event
    const q = await s.payments.insert({ ...newPayment("A", "save-2"), saveMethod: true }, 1000, TTL);
    await s.payments.transition(q.id, "start", 1100);
    const second = newSavedMethod(q, card, "tok-2", 1200);
    await s.payments.transition(q.id, "payInTime", 1200, { savedMethod: second });
    await s.methods.end(second.id, { status: "REVOKED", revokedBy: "MERCHANT", notify: false }, 7000);
    expect((await unpublished(s)).filter((r) => r.paymentId === q.id).map((r) => r.status)).toEqual(["SUCCESS"]);
  });

  test("a shop's methods newest first, by customer, after a cursor; expired cards are due for the sweeper", async () => {
    const s = await open(engine);
    const ids: string[] = [];
    for (const [i, customer] of ["x", "y", "x"].entries()) {
      const p = await s.payments.insert({ ...newPayment("A", `m-${i}`), saveMethod: true, customerId: customer }, 1000 + i, TTL);
      await s.payments.transition(p.id, "start", 2000);
      const m = newSavedMethod(p, { ...card, card: { ...card.card, expYear: 2020 + i } }, `tok-${i}`, 3000 + i);
      await s.payments.transition(p.id, "payInTime", 3000 + i, { savedMethod: m });
      ids.push(m.id);
    }
    expect((await s.methods.list("A", { limit: 10 })).map((m) => m.id)).toEqual([...ids].reverse());
    const [first, second, third] = ids as [string, string, string];
    expect((await s.methods.list("A", { customerId: "x", limit: 10 })).map((m) => m.id)).toEqual([third, first]);
    expect((await s.methods.list("A", { startingAfter: third, limit: 10 })).map((m) => m.id)).toEqual([second, first]);
    expect(await s.methods.list("B", { limit: 10 })).toEqual([]);
    // cards valid through February 2020 and 2021 are over by 2021-06-01; the 2022 one is not
    expect((await s.methods.dueForExpiry(Date.UTC(2021, 5, 1), 10)).sort()).toEqual([first, second].sort());
  });

  test("a live charge is born PENDING with its driver's lease and no expiry; claimed by one sweeper at a time; its end clears the lease", async () => {
    const s = await open(engine);
    const c = await s.payments.insert({ ...newPayment("A", "charge"), method: "CARD", merchantInitiated: true }, 1000, 5000);
    expect(c).toMatchObject({ status: "PENDING", expiresAt: null, chargeRetryAt: 6000, methodFixed: true });
    const sandbox = await s.payments.insert({ ...newPayment("A", "sandbox-charge"), isTest: true, merchantInitiated: true }, 1000, 9000);
    expect(sandbox).toMatchObject({ status: "PENDING", expiresAt: 10_000, chargeRetryAt: null });
    expect(await s.payments.dueCharges(5999, 10)).toEqual([]);
    expect(await s.payments.dueCharges(6000, 10)).toEqual([c.id]);
    const claims = await Promise.all([s.payments.claimCharge(c.id, 6000, 1000), s.payments.claimCharge(c.id, 6000, 1000)]);
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await s.payments.dueCharges(6500, 10)).toEqual([]);
    const failed = (await s.payments.transition(c.id, "decline", 7500, { patch: () => ({ failureCode: "AUTHENTICATION_REQUIRED", failureParams: {} }) }))!;
    expect(failed.row).toMatchObject({ status: "FAILED", chargeRetryAt: null, failureCode: "AUTHENTICATION_REQUIRED" });
    // the bank's final word on the confirmation keeps it FAILED, without a second FAILED event
    expect((await s.payments.transition(c.id, "failAuthentication", 7600, { patch: () => ({ failureCode: "AUTHENTICATION_FAILED" }) }))!.row.failureCode).toBe("AUTHENTICATION_FAILED");
    expect((await unpublished(s)).filter((r) => r.paymentId === c.id).map((r) => r.status)).toEqual(["FAILED"]);
    expect(await s.payments.claimCharge(c.id, 9000, 1000)).toBeUndefined();
  });

  test("a hold: AUTHORIZED is announced and waits for its deadline; a partial capture's lines are kept only while it is AUTHORIZED", async () => {
    const s = await open(engine);
    const h = await s.payments.insert({ ...newPayment("A", "hold"), method: "CARD", hold: true, heldKopecks: 10_000 }, 1000, TTL);
    await s.payments.transition(h.id, "start", 1100);
    await s.payments.transition(h.id, "authorize", 1200, { patch: () => ({ expiresAt: 9000 }) });
    expect(await s.payments.dueForExpiry(9000, 10)).toEqual([h.id]);
    const lines = { customer: { email: "b@example.com" }, taxation: "osn" as const, items: [{ name: "x", quantity: 1, priceKopecks: 6000, amountKopecks: 6000, vat: "none" as const, paymentSubject: "commodity" as const, paymentMode: "full_payment" as const }] };
    await s.payments.keepCaptureReceipt(h.id, lines);
    expect((await s.payments.byId(h.id))!.captureReceipt).toEqual(lines);
    const captured = (await s.payments.transition(h.id, "capture", 2000, { patch: () => ({ amountKopecks: 6000, paidAt: 2000, captureReceipt: null }) }))!;
    expect(captured.row).toMatchObject({ status: "SUCCESS", amountKopecks: 6000, heldKopecks: 10_000, expiresAt: null });
    await s.payments.keepCaptureReceipt(h.id, lines);
    expect((await s.payments.byId(h.id))!.captureReceipt).toBeNull();
    expect((await unpublished(s)).map((r) => r.status)).toEqual(["AUTHORIZED", "SUCCESS"]);
  });
});
