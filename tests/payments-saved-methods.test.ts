import { Database } from "bun:sqlite";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { PaymentMethodList, rpcs, type AuditEvent } from "@payaccept/contracts";
import { AcquirerClient } from "./acquirer-fixtures.ts";
import { ENGINES, sqliteRunOnly } from "./harness/engines.ts";
import { eventually, Stack } from "./harness/stack.ts";
import {
  acquirer,
  api,
  buyerPays,
  create,
  getMethod,
  getPayment,
  outcomeOf,
  refusal,
  savedCard,
  shopWithReceiver,
  statusIs,
  webhookOf,
  webhooks,
  webhookStatuses,
  type LiveShop,
} from "./recurring-fixtures.ts";

/**
 * Saved methods and merchant-initiated charges end to end (issue 18): a buyer saves a card or an
 * SBP account on a live payment, the shop charges it without them, and a method that ends (the
 * shop's revocation, the payer's in the bank app, the bank's decline) refuses every later charge.
 * Real gateway, payments, acquirer emulator and webhook dispatcher, on both engines.
 */
setDefaultTimeout(120_000);

describe.each(ENGINES)("saved methods and charges (%s)", (engine) => {
  let stack: Stack;
  let shop: LiveShop;

  beforeAll(async () => {
    stack = await Stack.start({ services: ["directory", "gateway", "payments", "acquirer-emulator", "webhook-dispatcher"], postgres: engine === "postgres" });
    shop = await shopWithReceiver(stack);
  });
  afterAll(async () => {
    shop?.receiver.stop();
    await stack?.stop();
  });

  const charge = (methodId: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
    api(stack, shop, "/v1/payments", { method: "POST", json: { orderId: `charge-${crypto.randomUUID()}`, amountKopecks: 99000, paymentMethodId: methodId, ...extra }, headers });

  test("a card saved at a payment is charged three times without the buyer; once revoked, every charge is refused", async () => {
    const { payment, methodId } = await savedCard(stack, shop, { customerId: "tea-lover-7" });
    expect(payment).toMatchObject({ status: "SUCCESS", customerId: "tea-lover-7", savePaymentMethod: true, paymentMethod: { id: methodId, method: "CARD", card: { brand: "VISA", last4: "1111", expMonth: 12 }, sbp: null } });
    // the SUCCESS webhook carries the saved method too, after the spec's fields
    const paidHook = await webhookOf(shop, payment.id, "SUCCESS");
    expect(paidHook).toMatchObject({ customerId: "tea-lover-7", savePaymentMethod: true, paymentMethod: { id: methodId } });
    expect(await getMethod(stack, shop, methodId)).toEqual({
      ...payment.paymentMethod!,
      status: "ACTIVE",
      customerId: "tea-lover-7",
      paymentId: payment.id,
      isTest: false,
      createdAt: expect.any(String),
      deactivatedAt: null,
      revokedBy: null,
    });

    const charges = [];
    for (let i = 0; i < 3; i++) {
      const done = await outcomeOf(stack, shop, await charge(methodId, { description: `Подписка, месяц ${i + 1}` }));
      charges.push(done);
      expect(done).toMatchObject({ status: "SUCCESS", merchantInitiated: true, method: "CARD", paymentMethod: { id: methodId }, commissionKopecks: 2475 });
      expect(done).not.toHaveProperty("savePaymentMethod");
    }
    for (const c of charges) {
      expect((await webhookOf(shop, c.id, "SUCCESS")).merchantInitiated).toBe(true);
      // the acquirer has exactly one charge under each payment's id
      expect(await (await acquirer(stack, `/v1/charges/${c.id}`)).json()).toMatchObject({ kind: "CHARGE", status: "PAID", capturedKopecks: 99000 });
    }

    const revoked = await api(stack, shop, `/v1/payment-methods/${methodId}/revoke`, { method: "POST" });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ id: methodId, status: "REVOKED", revokedBy: "MERCHANT", deactivatedAt: expect.any(String) });
    // a repeat answers the method as it is
    expect((await api(stack, shop, `/v1/payment-methods/${methodId}/revoke`, { method: "POST" })).body).toEqual(revoked.body);
    expect(await refusal(charge(methodId))).toEqual({ status: 409, code: "SAVED_METHOD_INACTIVE" });
    // the acquirer refuses it too, whoever asks
    const token = (await (await acquirer(stack, `/v1/charges/${charges[0]!.id}`)).json()).savedMethod.methodId;
    expect(await (await acquirer(stack, `/v1/methods/${token}`)).json()).toMatchObject({ status: "REVOKED", revokedBy: "MERCHANT" });
    // no webhook for the shop's own revocation
    expect(webhookStatuses(shop, payment.id)).toEqual(["SUCCESS"]);
  });

  test("an SBP account bound in the bank app, revoked there by the payer: the shop gets a webhook, and charges are refused", async () => {
    const acq = new AcquirerClient(stack);
    const p = await create(stack, shop, { savePaymentMethod: true, customerId: "sbp-payer", method: "SBP" });
    const view = await stack.call(rpcs.payments.start, { id: p.id, method: "SBP", saveMethod: true });
    const cookie = await acq.bankApp(view.sbp!.qrPayload, "pay-bind");
    const paid = await statusIs(stack, shop, p.id, "SUCCESS");
    expect(paid.paymentMethod).toMatchObject({ method: "SBP", card: null, sbp: { bankName: expect.any(String) } });
    const methodId = paid.paymentMethod!.id;
    expect(await outcomeOf(stack, shop, await charge(methodId, { amountKopecks: 20000 }))).toMatchObject({ status: "SUCCESS", method: "SBP" });

    // the payer revokes it under «Мои привязки» of their bank app
    const bindings = await (await fetch(`${acq.base}/app/bindings`, { headers: { Cookie: cookie! } })).text();
    const [, bankMethodId, formToken] = /action="\/app\/bindings\/([^/"]+)\/revoke"><input type="hidden" name="token" value="([0-9a-f]{64})"/.exec(bindings)!;
    expect((await acq.postForm(`${acq.base}/app/bindings/${bankMethodId}/revoke`, { token: formToken! }, acq.publicOrigin, cookie)).status).toBe(303);

    const hook = await webhookOf(shop, p.id, "PAYMENT_METHOD_REVOKED");
    // the saving payment's fields, so a spec-only receiver reads it, and the method as it now is
    expect(hook).toMatchObject({ id: p.id, orderId: p.orderId, amountKopecks: p.amountKopecks, test: false, paymentMethod: { id: methodId, status: "REVOKED", revokedBy: "PAYER" } });
    expect(await getMethod(stack, shop, methodId)).toMatchObject({ status: "REVOKED", revokedBy: "PAYER" });
    expect(await refusal(charge(methodId))).toEqual({ status: 409, code: "SAVED_METHOD_INACTIVE" });
    // the payment itself is untouched, and its delivery log lists the method's webhook beside its own
    expect((await getPayment(stack, shop, p.id)).status).toBe("SUCCESS");
    const log = (await api(stack, shop, `/v1/payments/${p.id}/webhooks`)).body as { items: { status: string }[] };
    expect(log.items.map((d) => d.status).sort()).toEqual(["PAYMENT_METHOD_REVOKED", "SUCCESS"]);
    // and the shop's delivery log (the dashboard's) narrows to the method's event as to a payment's status
    const revoked = await stack.call(rpcs.webhooks.log, { shopId: shop.shopId, paymentId: p.id, status: "PAYMENT_METHOD_REVOKED" });
    expect(revoked.items.map((d) => d.status)).toEqual(["PAYMENT_METHOD_REVOKED"]);
  });

  test("each test card's decline is a FAILED charge with a reason the shop can act on; a method the bank ended is ended here, with its webhook", async () => {
    const cases = [
      { pan: "4000 0000 0000 9995", code: "INSUFFICIENT_FUNDS", method: "ACTIVE", hook: null },
      { pan: "4000 0000 0000 0069", code: "CARD_EXPIRED", method: "EXPIRED", hook: "PAYMENT_METHOD_EXPIRED" },
      { pan: "4000 0000 0000 0119", code: "METHOD_REVOKED", method: "REVOKED", hook: "PAYMENT_METHOD_REVOKED" },
    ] as const;
    for (const c of cases) {
      const { payment, methodId } = await savedCard(stack, shop, { pan: c.pan });
      const done = await outcomeOf(stack, shop, await charge(methodId));
      expect(done).toMatchObject({ status: "FAILED", merchantInitiated: true, failureCode: c.code, failureReason: expect.any(String), failureParams: {} });
      expect(await webhookOf(shop, done.id, "FAILED")).toMatchObject({ failureCode: c.code });
      expect((await getMethod(stack, shop, methodId)).status).toBe(c.method);
      if (c.hook) {
        expect((await webhookOf(shop, payment.id, c.hook)).paymentMethod).toMatchObject({ id: methodId, status: c.method });
        expect(await refusal(charge(methodId))).toEqual({ status: 409, code: "SAVED_METHOD_INACTIVE" });
      }
    }
  });

  test("the bank asks the buyer to confirm: FAILED AUTHENTICATION_REQUIRED, then the buyer confirms from payUrl and SUCCESS follows", async () => {
    const { methodId } = await savedCard(stack, shop, { pan: "4000 0000 0000 0341" });
    const failed = await outcomeOf(stack, shop, await charge(methodId));
    expect([failed.status, failed.failureCode]).toEqual(["FAILED", "AUTHENTICATION_REQUIRED"]);
    const view = await stack.call(rpcs.payments.checkout, { id: failed.id });
    expect(view.authentication).toEqual({ url: expect.stringContaining("/3ds"), expiresAt: expect.any(String) });
    const acq = new AcquirerClient(stack);
    const page = acq.local(view.authentication!.url);
    const done = await acq.postForm(page, { token: await acq.tokenOf(page), code: "123456" }, acq.publicOrigin);
    expect(done.status).toBe(303);
    const paid = await statusIs(stack, shop, failed.id, "SUCCESS");
    expect(paid).not.toHaveProperty("failureCode");
    await webhookOf(shop, failed.id, "SUCCESS");
    expect(webhookStatuses(shop, failed.id).sort()).toEqual(["FAILED", "SUCCESS"]);
    expect((await stack.call(rpcs.payments.checkout, { id: failed.id })).authentication).toBeNull();
  });

  test("a buyer who does not agree to save pays all the same, and nothing is saved", async () => {
    const p = await create(stack, shop, { savePaymentMethod: true });
    expect((await stack.call(rpcs.payments.checkout, { id: p.id })).saveMethod).toEqual({ consent: "BUYER_CHOICE" });
    await buyerPays(stack, p.id, { method: "CARD", save: false });
    const paid = await statusIs(stack, shop, p.id, "SUCCESS");
    expect(paid.savePaymentMethod).toBe(true);
    expect(paid).not.toHaveProperty("paymentMethod");
  });

  test("a shop that saves always: the page says so, and paying saves the method without a tick", async () => {
    const always = await shopWithReceiver(stack);
    try {
      await stack.call(rpcs.directory.updateShop, { shopId: always.shopId, savedMethodConsent: "ALWAYS" });
      const p = await eventually(async () => {
        const created = await create(stack, always, { savePaymentMethod: true });
        return (await stack.call(rpcs.payments.checkout, { id: created.id })).saveMethod?.consent === "ALWAYS" && created;
      });
      await buyerPays(stack, p.id, { method: "CARD" });
      expect((await statusIs(stack, always, p.id, "SUCCESS")).paymentMethod).toMatchObject({ method: "CARD" });
    } finally {
      always.receiver.stop();
    }
  });

  // Reads and input checks: the stores answer them alike, the writes above run on both engines.
  test("the audit log names the key on a charge, a capture, a void and a revocation, one entry each however often they are repeated", async () => {
    const { methodId } = await savedCard(stack, shop, { customerId: "audited" });
    const headers = { "User-Agent": "shop-backend/3.0" };
    const actor = { kind: "apiKey", label: shop.apiKey.slice(0, 12), ip: "127.0.0.1", userAgent: "shop-backend/3.0" };
    const entries = async (action: AuditEvent["action"], targetId: string) =>
      (await stack.call(rpcs.directory.auditLog, { shopId: shop.shopId, action, limit: 50 })).items.filter((e) => e.target?.id === targetId);
    // One entry, once the AUDIT stream has brought it to the directory: repeats carry the same id.
    const onlyEntry = async (action: AuditEvent["action"], targetId: string) => {
      await eventually(async () => (await entries(action, targetId)).length > 0, 30_000);
      const found = await entries(action, targetId);
      expect(found).toHaveLength(1);
      return found[0]!;
    };

    const once = () =>
      api(stack, shop, "/v1/payments", { method: "POST", json: { orderId: `audited-${methodId}`, amountKopecks: 99000, paymentMethodId: methodId }, headers: { ...headers, "Idempotency-Key": `audit-${methodId}` } });
    const paid = await outcomeOf(stack, shop, await once());
    expect((await once()).status).toBe(201);
    expect(await onlyEntry("charge.created", paid.id)).toMatchObject({
      actor,
      accountId: shop.accountId,
      target: { type: "payment", id: paid.id },
      after: { orderId: paid.orderId, amountKopecks: 99000, paymentMethodId: methodId, capture: true },
    });

    const held = await outcomeOf(stack, shop, await charge(methodId, { capture: false }, headers));
    expect(held.status).toBe("AUTHORIZED");
    for (let i = 0; i < 2; i++) expect(await api(stack, shop, `/v1/payments/${held.id}/capture`, { method: "POST", json: { amountKopecks: 60000 }, headers })).toMatchObject({ status: 200, body: { status: "SUCCESS" } });
    expect(await onlyEntry("payment.captured", held.id)).toMatchObject({ actor, after: { amountKopecks: 60000, heldKopecks: 99000 } });

    const voided = await outcomeOf(stack, shop, await charge(methodId, { capture: false }, headers));
    expect(await api(stack, shop, `/v1/payments/${voided.id}/cancel`, { method: "POST", headers })).toMatchObject({ status: 200, body: { status: "CANCELED" } });
    expect(await onlyEntry("payment.voided", voided.id)).toMatchObject({ actor, after: { heldKopecks: 99000 } });
    expect(await refusal(api(stack, shop, `/v1/payments/${voided.id}/capture`, { method: "POST", headers }))).toMatchObject({ status: 409 });

    for (let i = 0; i < 2; i++) expect((await api(stack, shop, `/v1/payment-methods/${methodId}/revoke`, { method: "POST", headers })).status).toBe(200);
    expect(await onlyEntry("payment_method.revoked", methodId)).toMatchObject({ actor, target: { type: "payment_method", id: methodId }, after: { customerId: "audited" } });
    // The refused capture recorded nothing: the revocation, asked after it, is in the log already.
    expect(await entries("payment.captured", voided.id)).toEqual([]);
  });

  sqliteRunOnly(engine, () => {
    // The due query is tested on both engines in saved-methods-store.test.ts; this is the card
    // expiry sweeper's wiring to the webhook and the refusal, with a month passed by hand: the
    // test moves the method's expiry instant (the first one after its month) into the past.
    test("a saved card whose expiry month is over ends EXPIRED by itself: the shop gets a webhook, and charges are refused", async () => {
      const { payment, methodId } = await savedCard(stack, shop, { customerId: "expiring" });
      const db = new Database(join(stack.dataDir, "payments.db"));
      try {
        db.run("PRAGMA busy_timeout = 10000");
        expect(db.run("UPDATE saved_methods SET expires_at = ? WHERE id = ? AND expires_at IS NOT NULL", [Date.now() - 1, methodId]).changes).toBe(1);
      } finally {
        db.close();
      }
      const hook = await webhookOf(shop, payment.id, "PAYMENT_METHOD_EXPIRED");
      expect(hook).toMatchObject({ id: payment.id, orderId: payment.orderId, paymentMethod: { id: methodId, status: "EXPIRED", revokedBy: null, deactivatedAt: expect.any(String) } });
      expect(await getMethod(stack, shop, methodId)).toMatchObject({ status: "EXPIRED", revokedBy: null });
      expect(await refusal(charge(methodId))).toEqual({ status: 409, code: "SAVED_METHOD_INACTIVE" });
      expect(webhookStatuses(shop, payment.id).sort()).toEqual(["PAYMENT_METHOD_EXPIRED", "SUCCESS"]);
    });

    test("a shop lists its methods newest first, by customer, a page at a time; another shop's method does not exist for it", async () => {
      const a = await savedCard(stack, shop, { customerId: "list-me" });
      const b = await savedCard(stack, shop, { customerId: "list-me" });
      const page1 = PaymentMethodList.parse((await api(stack, shop, "/v1/payment-methods?customerId=list-me&limit=1")).body);
      expect([page1.items.map((m) => m.id), page1.hasMore]).toEqual([[b.methodId], true]);
      const page2 = PaymentMethodList.parse((await api(stack, shop, `/v1/payment-methods?customerId=list-me&limit=1&startingAfter=${b.methodId}`)).body);
      expect([page2.items.map((m) => m.id), page2.hasMore]).toEqual([[a.methodId], false]);
      const other = await shopWithReceiver(stack);
      try {
        expect(await refusal(api(stack, other, `/v1/payment-methods/${a.methodId}`))).toEqual({ status: 404, code: "METHOD_NOT_FOUND" });
        expect(await refusal(api(stack, other, `/v1/payment-methods/${a.methodId}/revoke`, { method: "POST" }))).toEqual({ status: 404, code: "METHOD_NOT_FOUND" });
        expect(await refusal(api(stack, other, "/v1/payments", { method: "POST", json: { orderId: "x-1", amountKopecks: 1000, paymentMethodId: a.methodId } }))).toEqual({ status: 404, code: "METHOD_NOT_FOUND" });
        expect((await api(stack, other, "/v1/payment-methods")).body).toEqual({ items: [], hasMore: false });
      } finally {
        other.receiver.stop();
      }
    });

    test("contradictory creates are refused with every problem named; SBP cannot be held", async () => {
      const { body, status } = await api(stack, shop, "/v1/payments", {
        method: "POST",
        json: { orderId: "bad-1", amountKopecks: 1000, paymentMethodId: crypto.randomUUID(), method: "CARD", savePaymentMethod: true },
      });
      expect(status).toBe(400);
      expect((body as { params: { issues: { path: string; params: { rule?: string } }[] } }).params.issues.map((i) => [i.path, i.params.rule])).toEqual([
        ["method", "WITH_PAYMENT_METHOD_ID"],
        ["savePaymentMethod", "WITH_PAYMENT_METHOD_ID"],
      ]);
      expect(await refusal(api(stack, shop, "/v1/payments", { method: "POST", json: { orderId: "bad-2", amountKopecks: 1000, method: "SBP", capture: false } }))).toEqual({ status: 400, code: "HOLD_NOT_FOR_SBP" });
      expect(await refusal(api(stack, shop, "/v1/payments", { method: "POST", json: { orderId: "bad-3", amountKopecks: 1000, paymentMethodId: crypto.randomUUID() } }))).toEqual({ status: 404, code: "METHOD_NOT_FOUND" });
      // nothing was created: the orderIds are free
      expect((await api(stack, shop, "/v1/payments?orderId=bad-2")).status).toBe(404);
    });

    test("a payment without the new fields is the spec's object and webhook, byte for byte in its keys", async () => {
      const p = await create(stack, shop, {});
      expect(Object.keys(p)).toEqual(["id", "orderId", "status", "amountKopecks", "commissionKopecks", "description", "method", "telegramId", "metadata", "successUrl", "failUrl", "payUrl", "isTest", "paidAt", "createdAt", "refundedKopecks"]);
      await buyerPays(stack, p.id, { method: "CARD" });
      await statusIs(stack, shop, p.id, "SUCCESS");
      const hook = await eventually(() => shop.receiver.requests.find((r) => JSON.parse(r.body).id === p.id));
      expect(Object.keys(JSON.parse(hook.body))).toEqual(["id", "orderId", "status", "amountKopecks", "telegramId", "metadata", "test"]);
      expect(webhooks(shop).filter((w) => w.id === p.id).map((w) => w.status)).toEqual(["SUCCESS"]);
    });
  });
});
