import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Payment } from "@payaccept/contracts";
import { ENGINES, sqliteRunOnly } from "./harness/engines.ts";
import { Stack } from "./harness/stack.ts";
import { api, create, getMethod, refusal, shopWithReceiver, webhookOf, webhooksAre, type LiveShop } from "./recurring-fixtures.ts";

/**
 * The sandbox from code (issue 18, item 7): a sandbox shop's payments, charges and holds completed
 * by an API call as a buyer or a bank would, with the same webhooks and saved methods as a real
 * outcome, so an integration is tested without a browser; a live shop's payment is refused.
 */
setDefaultTimeout(120_000);

describe.each(ENGINES)("sandbox outcomes from code (%s)", (engine) => {
  let stack: Stack;
  let shop: LiveShop;

  beforeAll(async () => {
    stack = await Stack.start({ services: ["directory", "gateway", "payments", "webhook-dispatcher"], postgres: engine === "postgres" });
    shop = await shopWithReceiver(stack, { sandbox: true });
  });
  afterAll(async () => {
    shop?.receiver.stop();
    await stack?.stop();
  });

  const outcome = (id: string, json: unknown) => api(stack, shop, `/v1/sandbox/payments/${id}/outcome`, { method: "POST", json });
  const completed = async (id: string, json: unknown) => {
    const res = await outcome(id, json);
    expect(res.status).toBe(200);
    return Payment.parse(res.body);
  };
  const charge = async (methodId: string) => {
    const res = await api(stack, shop, "/v1/payments", { method: "POST", json: { orderId: `sb-${crypto.randomUUID()}`, amountKopecks: 30_000, paymentMethodId: methodId } });
    expect(res).toMatchObject({ status: 201, body: { status: "PENDING", merchantInitiated: true, isTest: true } });
    return Payment.parse(res.body);
  };

  test("a saved test card, charged: declined for lack of funds, confirmed after the bank asked, and revoked by its bank, each with its webhook", async () => {
    const p = await create(stack, shop, { savePaymentMethod: true, customerId: "sandbox-buyer" });
    const paid = await completed(p.id, { outcome: "SUCCESS" });
    expect(paid).toMatchObject({ status: "SUCCESS", isTest: true, method: "CARD", paymentMethod: { method: "CARD", card: { brand: "VISA", last4: "4242" } } });
    expect((await webhookOf(shop, p.id, "SUCCESS")).test).toBe(true);
    const methodId = paid.paymentMethod!.id;
    expect(await getMethod(stack, shop, methodId)).toMatchObject({ status: "ACTIVE", isTest: true, customerId: "sandbox-buyer" });

    const poor = await charge(methodId);
    expect(await completed(poor.id, { outcome: "FAILED", failureCode: "INSUFFICIENT_FUNDS" })).toMatchObject({ status: "FAILED", failureCode: "INSUFFICIENT_FUNDS" });

    const confirm = await charge(methodId);
    expect(await completed(confirm.id, { outcome: "FAILED", failureCode: "AUTHENTICATION_REQUIRED" })).toMatchObject({ status: "FAILED", failureCode: "AUTHENTICATION_REQUIRED" });
    expect(await completed(confirm.id, { outcome: "SUCCESS" })).toMatchObject({ status: "SUCCESS" });
    await webhooksAre(shop, confirm.id, ["FAILED", "SUCCESS"]);

    const last = await charge(methodId);
    expect(await completed(last.id, { outcome: "FAILED", failureCode: "METHOD_REVOKED" })).toMatchObject({ status: "FAILED", failureCode: "METHOD_REVOKED" });
    expect((await webhookOf(shop, p.id, "PAYMENT_METHOD_REVOKED")).paymentMethod).toMatchObject({ id: methodId, status: "REVOKED", revokedBy: "ISSUER" });
    expect(await refusal(api(stack, shop, "/v1/payments", { method: "POST", json: { orderId: `sb-${crypto.randomUUID()}`, amountKopecks: 30_000, paymentMethodId: methodId } }))).toEqual({
      status: 409,
      code: "SAVED_METHOD_INACTIVE",
    });
  });

  test("holds: paid → AUTHORIZED, then captured, voided, or run out at the deadline", async () => {
    const captured = await create(stack, shop, { amountKopecks: 40_000, capture: false });
    expect(await completed(captured.id, { outcome: "SUCCESS" })).toMatchObject({ status: "AUTHORIZED", captureDeadline: expect.any(String) });
    const res = await api(stack, shop, `/v1/payments/${captured.id}/capture`, { method: "POST", json: { amountKopecks: 35_000 } });
    expect(res).toMatchObject({ status: 200, body: { status: "SUCCESS", amountKopecks: 35_000, heldKopecks: 40_000 } });

    const voided = await create(stack, shop, { amountKopecks: 40_000, capture: false });
    await completed(voided.id, { outcome: "SUCCESS" });
    expect((await api(stack, shop, `/v1/payments/${voided.id}/cancel`, { method: "POST" })).body).toMatchObject({ status: "CANCELED" });

    const lapsed = await create(stack, shop, { amountKopecks: 40_000, capture: false });
    await completed(lapsed.id, { outcome: "SUCCESS" });
    expect(await completed(lapsed.id, { outcome: "EXPIRED" })).toMatchObject({ status: "EXPIRED", captureDeadline: null });
    for (const [p, status] of [[captured, "SUCCESS"], [voided, "CANCELED"], [lapsed, "EXPIRED"]] as const) {
      await webhooksAre(shop, p.id, ["AUTHORIZED", status]);
    }
  });

  test("an outcome the payment already has is answered again as the first call was answered (a retry whose answer was lost), and nothing moves twice", async () => {
    const p = await create(stack, shop, {});
    const paid = await completed(p.id, { outcome: "SUCCESS" });
    expect(await completed(p.id, { outcome: "SUCCESS" })).toEqual(paid);
    expect(await refusal(outcome(p.id, { outcome: "FAILED" }))).toEqual({ status: 409, code: "SANDBOX_OUTCOME_NOT_APPLICABLE" });
    const declined = await create(stack, shop, {});
    const failed = await completed(declined.id, { outcome: "FAILED", failureCode: "INSUFFICIENT_FUNDS" });
    expect(await completed(declined.id, { outcome: "FAILED", failureCode: "INSUFFICIENT_FUNDS" })).toEqual(failed);
    const lapsed = await create(stack, shop, {});
    const expired = await completed(lapsed.id, { outcome: "EXPIRED" });
    expect(await completed(lapsed.id, { outcome: "EXPIRED" })).toEqual(expired);
    await webhooksAre(shop, p.id, ["SUCCESS"]);
    await webhooksAre(shop, declined.id, ["FAILED"]);
  });

  // Refusals before anything is written.
  sqliteRunOnly(engine, () => {
    test("a live shop's payment, an outcome its status does not take, and a failureCode without FAILED are refused", async () => {
      const live = await shopWithReceiver(stack, { sandbox: false });
      try {
        const p = await create(stack, live, {});
        expect(await refusal(api(stack, live, `/v1/sandbox/payments/${p.id}/outcome`, { method: "POST", json: { outcome: "SUCCESS" } }))).toEqual({ status: 409, code: "SANDBOX_OUTCOME_LIVE_PAYMENT" });
      } finally {
        live.receiver.stop();
      }
      const canceled = await create(stack, shop, {});
      await api(stack, shop, `/v1/payments/${canceled.id}/cancel`, { method: "POST" });
      expect(await refusal(outcome(canceled.id, { outcome: "SUCCESS" }))).toEqual({ status: 409, code: "SANDBOX_OUTCOME_NOT_APPLICABLE" });
      expect(await refusal(outcome(canceled.id, { outcome: "SUCCESS", failureCode: "CARD_EXPIRED" }))).toEqual({ status: 400, code: "VALIDATION_FAILED" });
      expect(await refusal(outcome(crypto.randomUUID(), { outcome: "SUCCESS" }))).toEqual({ status: 404, code: "PAYMENT_NOT_FOUND" });
    });
  });
});
