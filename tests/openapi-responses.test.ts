import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import {
  Balance,
  ErrorBody,
  Payment,
  PaymentListPage,
  PaymentMethodList,
  SavedPaymentMethod,
  Refund,
  RefundList,
  Payout,
  PayoutList,
  TestWebhookResult,
  WebhookDelivery,
  WebhookDeliveryList,
  rpcs,
} from "@payaccept/contracts";
import { startReceiver, type Receiver } from "../services/webhook-dispatcher/test-support/receiver.ts";
import { BalanceFeed, enterPayoutDetails } from "./balance-fixtures.ts";
import { eventually, Stack, type ShopCreated, STACK_START_MS } from "./harness/stack.ts";
import { documentFor, documentValidator } from "./openapi-validate.ts";
import { paidSandbox } from "./payments-fixtures.ts";

setDefaultTimeout(60_000);

/**
 * Real responses of the gateway and the services behind it, checked against the published
 * OpenAPI document (a standard JSON Schema validator) and against the zod contracts: every status
 * is declared, every declared header is sent, every body conforms and carries no undeclared field.
 */
const doc = documentValidator();
let stack: Stack;
let shop: ShopCreated;
let receiver: Receiver;

beforeAll(async () => {
  // Two balance reads a minute per key, so that the third shows the documented 429.
  stack = await Stack.start({ services: ["directory", "gateway", "payments", "balance", "webhook-dispatcher"], env: { RATE_LIMIT_BALANCE: "2" } });
  receiver = startReceiver(() => new Response("ok"));
  shop = await stack.createShop({ name: "OpenAPI shop", sandbox: true, webhookUrl: receiver.url });
}, STACK_START_MS);
afterAll(async () => {
  receiver?.stop();
  await stack?.stop();
});

const api = (path: string, init: RequestInit & { json?: unknown } = {}, key: string | null = shop.apiKey) =>
  stack.api(key, path, { signal: AbortSignal.timeout(10_000), ...init });
let n = 0;
const orderId = () => `oa-${Date.now()}-${++n}`;

/** The body, checked by the document and round-tripped through the zod contract unchanged. */
async function conforming<T>(res: Response, method: string, path: string, zod: { parse: (v: unknown) => T }, schema: string): Promise<T> {
  const checked = await doc.expectConforms(res, method, path);
  expect(checked.schema).toBe(schema);
  expect(zod.parse(checked.body)).toEqual(checked.body as T);
  return checked.body as T;
}

describe("the gateway publishes the document", () => {
  test("GET /api/openapi.json is the document built from the contracts and the gateway's configuration, without a key", async () => {
    const res = await api("/openapi.json", {}, null);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toStartWith("application/json");
    expect(await res.json()).toEqual(JSON.parse(JSON.stringify(documentFor(stack.env))));
  });

  test("another method on the document's paths is 405 with Allow: GET, like every path of the API", async () => {
    for (const path of ["/openapi.json", "/docs"]) {
      const res = await api(path, { method: "POST" }, null);
      expect({ status: res.status, allow: res.headers.get("Allow"), code: ((await res.json()) as { code: string }).code }).toEqual({
        status: 405,
        allow: "GET",
        code: "METHOD_NOT_ALLOWED",
      });
    }
  });

  test("GET /api/docs is a self-contained page listing every operation", async () => {
    const res = await api("/docs", {}, null);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toStartWith("text/html");
    expect(res.headers.get("content-security-policy")).toContain("default-src 'none'");
    const html = await res.text();
    for (const id of ["createPayment", "listPayments", "getPayment", "cancelPayment", "getBalance", "paymentResultWebhook"]) {
      expect(html).toContain(`id="op-${id}"`);
    }
  });
});

/** An error answer: the status, the documented Error shape, its statusCode. */
async function expectError(res: Response, method: string, path: string, status: number) {
  expect(res.status).toBe(status);
  const body = await conforming(res, method, path, ErrorBody, "Error");
  expect(body.statusCode).toBe(status);
  return body;
}

describe("success responses", () => {
  test("create, get, look up, list and cancel", async () => {
    const order = orderId();
    const created = await conforming(
      await api("/v1/payments", {
        method: "POST",
        json: { orderId: order, amountKopecks: 25000, description: "Tea", telegramId: 77, metadata: { a: [1] }, successUrl: "https://shop.example/ok" },
      }),
      "post",
      "/v1/payments",
      Payment,
      "Payment",
    );
    expect(created).toMatchObject({ orderId: order, status: "CREATED", telegramId: "77" });

    const got = await conforming(await api(`/v1/payments/${created.id}`), "get", "/v1/payments/{id}", Payment, "Payment");
    expect(got).toEqual(created);

    const found = await conforming(await api(`/v1/payments?orderId=${order}`), "get", "/v1/payments", Payment, "Payment");
    expect(found.id).toBe(created.id);

    const page = await conforming(await api("/v1/payments?limit=5&status=CREATED"), "get", "/v1/payments", PaymentListPage, "PaymentListPage");
    expect(page).toMatchObject({ page: 1, pageSize: 5 });
    expect(page.items.map((p) => p.id)).toContain(created.id);

    const canceled = await conforming(await api(`/v1/payments/${created.id}/cancel`, { method: "POST" }), "post", "/v1/payments/{id}/cancel", Payment, "Payment");
    expect(canceled.status).toBe("CANCELED");
    const again = await conforming(await api(`/v1/payments/${created.id}/cancel`, { method: "POST" }), "post", "/v1/payments/{id}/cancel", Payment, "Payment");
    expect(again).toEqual(canceled);
  });

  test("saved methods, charges and holds: sandbox outcome, the method read, listed and revoked, a charge, a capture and a void", async () => {
    const outcome = (id: string, json: unknown) => api(`/v1/sandbox/payments/${id}/outcome`, { method: "POST", json });
    const saving = await conforming(await api("/v1/payments", { method: "POST", json: { orderId: orderId(), amountKopecks: 25000, savePaymentMethod: true, customerId: "oa-buyer" } }), "post", "/v1/payments", Payment, "Payment");
    const paid = await conforming(await outcome(saving.id, { outcome: "SUCCESS" }), "post", "/v1/sandbox/payments/{id}/outcome", Payment, "Payment");
    const methodId = paid.paymentMethod!.id;
    const method = await conforming(await api(`/v1/payment-methods/${methodId}`), "get", "/v1/payment-methods/{id}", SavedPaymentMethod, "SavedPaymentMethod");
    expect(method).toMatchObject({ status: "ACTIVE", customerId: "oa-buyer" });
    const list = await conforming(await api("/v1/payment-methods?customerId=oa-buyer&limit=5"), "get", "/v1/payment-methods", PaymentMethodList, "PaymentMethodList");
    expect(list.items.map((m) => m.id)).toEqual([methodId]);

    const charge = await conforming(await api("/v1/payments", { method: "POST", json: { orderId: orderId(), amountKopecks: 10000, paymentMethodId: methodId } }), "post", "/v1/payments", Payment, "Payment");
    const failed = await conforming(await outcome(charge.id, { outcome: "FAILED", failureCode: "INSUFFICIENT_FUNDS" }), "post", "/v1/sandbox/payments/{id}/outcome", Payment, "Payment");
    expect(failed).toMatchObject({ status: "FAILED", merchantInitiated: true, failureCode: "INSUFFICIENT_FUNDS" });

    const hold = await conforming(await api("/v1/payments", { method: "POST", json: { orderId: orderId(), amountKopecks: 30000, capture: false } }), "post", "/v1/payments", Payment, "Payment");
    await conforming(await outcome(hold.id, { outcome: "SUCCESS" }), "post", "/v1/sandbox/payments/{id}/outcome", Payment, "Payment");
    const captured = await conforming(await api(`/v1/payments/${hold.id}/capture`, { method: "POST", json: { amountKopecks: 20000 } }), "post", "/v1/payments/{id}/capture", Payment, "Payment");
    expect(captured).toMatchObject({ status: "SUCCESS", amountKopecks: 20000, heldKopecks: 30000 });
    const other = await conforming(await api("/v1/payments", { method: "POST", json: { orderId: orderId(), amountKopecks: 30000, capture: false } }), "post", "/v1/payments", Payment, "Payment");
    await outcome(other.id, { outcome: "SUCCESS" });
    expect((await conforming(await api(`/v1/payments/${other.id}/cancel`, { method: "POST" }), "post", "/v1/payments/{id}/cancel", Payment, "Payment")).status).toBe("CANCELED");

    const revoked = await conforming(await api(`/v1/payment-methods/${methodId}/revoke`, { method: "POST" }), "post", "/v1/payment-methods/{id}/revoke", SavedPaymentMethod, "SavedPaymentMethod");
    expect(revoked).toMatchObject({ status: "REVOKED", revokedBy: "MERCHANT" });
    await expectError(await api("/v1/payments", { method: "POST", json: { orderId: orderId(), amountKopecks: 10000, paymentMethodId: methodId } }), "post", "/v1/payments", 409);
    await expectError(await api(`/v1/payment-methods/${crypto.randomUUID()}`), "get", "/v1/payment-methods/{id}", 404);
    await expectError(await api(`/v1/payments/${captured.id}/capture`, { method: "POST", json: { amountKopecks: 10000 } }), "post", "/v1/payments/{id}/capture", 409);
  });

  test("refund in part, refund the rest without a body, list the refunds", async () => {
    const created = await paidSandbox(stack, shop.shopId, { amountKopecks: 30000 });
    const path = "/v1/payments/{id}/refunds";
    const part = await conforming(await api(`/v1/payments/${created.id}/refunds`, { method: "POST", json: { amountKopecks: 10000, reason: "one cup back" } }), "post", path, Refund, "Refund");
    expect(part).toMatchObject({ amountKopecks: 10000, status: "SUCCEEDED", reason: "one cup back" });
    const rest = await conforming(await api(`/v1/payments/${created.id}/refunds`, { method: "POST" }), "post", path, Refund, "Refund");
    expect(rest).toMatchObject({ amountKopecks: 20000, status: "SUCCEEDED", reason: null });
    const list = await conforming(await api(`/v1/payments/${created.id}/refunds`), "get", path, RefundList, "RefundList");
    expect(list.items.map((r) => r.id)).toEqual([part.id, rest.id]);
    const paid = await conforming(await api(`/v1/payments/${created.id}`), "get", "/v1/payments/{id}", Payment, "Payment");
    expect(paid).toMatchObject({ status: "REFUNDED", refundedKopecks: 30000 });
  });

  test("balance", async () => {
    const balance = await conforming(await api("/v1/balance"), "get", "/v1/balance", Balance, "Balance");
    expect(balance).toMatchObject({ availableKopecks: 0, frozenKopecks: 0 });
  });

  test("a payout, its replay under the same Idempotency-Key, and the payout list", async () => {
    const payer = await stack.createShop({ name: "Payer" });
    await enterPayoutDetails(stack, payer.accountId);
    await (await BalanceFeed.open(stack)).fund(payer.accountId, 10_000);
    const init = { method: "POST", json: { amountKopecks: 2_500 }, headers: { "Idempotency-Key": `oa-${orderId()}` } };
    const payout = await conforming(await api("/v1/payouts", init, payer.apiKey), "post", "/v1/payouts", Payout, "Payout");
    const replay = await api("/v1/payouts", init, payer.apiKey);
    expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await conforming(replay, "post", "/v1/payouts", Payout, "Payout")).toEqual(payout);
    const page = await conforming(await api("/v1/payouts?limit=10", {}, payer.apiKey), "get", "/v1/payouts", PayoutList, "PayoutList");
    expect(page).toEqual({ items: [payout], hasMore: false });
    expect(await conforming(await api(`/v1/payouts/${payout.id}`, {}, payer.apiKey), "get", "/v1/payouts/{id}", Payout, "Payout")).toEqual(payout);
  });

  test("a payment's webhook deliveries, a resend and a test webhook", async () => {
    const created = Payment.parse(await (await api("/v1/payments", { method: "POST", json: { orderId: orderId(), amountKopecks: 10000 } })).json());
    await api(`/v1/payments/${created.id}/cancel`, { method: "POST" });
    const path = `/v1/payments/${created.id}/webhooks`;
    await eventually(async () => WebhookDeliveryList.parse(await (await api(path)).json()).items[0]?.result === "delivered");
    const { items } = await conforming(await api(path), "get", "/v1/payments/{id}/webhooks", WebhookDeliveryList, "WebhookDeliveryList");
    const resent = await conforming(
      await api(`/v1/webhooks/deliveries/${items[0]!.id}/resend`, { method: "POST" }),
      "post",
      "/v1/webhooks/deliveries/{deliveryId}/resend",
      WebhookDelivery,
      "WebhookDelivery",
    );
    expect(resent.id).toBe(items[0]!.id);
    const result = await conforming(await api("/v1/webhooks/test", { method: "POST" }), "post", "/v1/webhooks/test", TestWebhookResult, "TestWebhookResult");
    expect(result.httpStatus).toBe(200);
  });
});

describe("error responses use the documented Error shape", () => {
  test("400 for an invalid body, listing every problem", async () => {
    const body = await expectError(await api("/v1/payments", { method: "POST", json: { orderId: "", amountKopecks: 1 } }), "post", "/v1/payments", 400);
    expect(body.message).toBeArray();
  });

  test("400 for a malformed id and for from later than to", async () => {
    await expectError(await api("/v1/payments/not-a-uuid"), "get", "/v1/payments/{id}", 400);
    await expectError(await api("/v1/payments/not-a-uuid/cancel", { method: "POST" }), "post", "/v1/payments/{id}/cancel", 400);
    await expectError(await api("/v1/payments/not-a-uuid/refunds"), "get", "/v1/payments/{id}/refunds", 400);
    const unknown = "0198f0c4-6c1e-7a3b-9d2e-4f5a6b7c8d9e";
    const body = await expectError(await api(`/v1/payments/${unknown}/refunds`, { method: "POST", json: { amountKopecks: 0, reason: "x".repeat(256) } }), "post", "/v1/payments/{id}/refunds", 400);
    expect(body.message).toBeArray();
    await expectError(await api("/v1/payments?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z"), "get", "/v1/payments", 400);
  });

  test("401 without a key or with a wrong one", async () => {
    await expectError(await api("/v1/balance", {}, null), "get", "/v1/balance", 401);
    await expectError(await api("/v1/payments", { method: "POST", json: { orderId: "x", amountKopecks: 100 } }, "wrong"), "post", "/v1/payments", 401);
  });

  test("404 for an unknown id and an unknown order", async () => {
    const unknown = "0198f0c4-6c1e-7a3b-9d2e-4f5a6b7c8d9e";
    await expectError(await api(`/v1/payments/${unknown}`), "get", "/v1/payments/{id}", 404);
    await expectError(await api(`/v1/payments/${unknown}/cancel`, { method: "POST" }), "post", "/v1/payments/{id}/cancel", 404);
    await expectError(await api(`/v1/payments/${unknown}/refunds`, { method: "POST" }), "post", "/v1/payments/{id}/refunds", 404);
    await expectError(await api(`/v1/payments/${unknown}/refunds`), "get", "/v1/payments/{id}/refunds", 404);
    await expectError(await api(`/v1/payments?orderId=${orderId()}`), "get", "/v1/payments", 404);
  });

  test("400 for a malformed Idempotency-Key, 422 for a key reused with another body, 404 for an unknown delivery", async () => {
    const key = `oa-${orderId()}`;
    const create = (json: unknown, idempotencyKey: string) => api("/v1/payments", { method: "POST", json, headers: { "Idempotency-Key": idempotencyKey } });
    await expectError(await create({ orderId: orderId(), amountKopecks: 100 }, "x".repeat(65)), "post", "/v1/payments", 400);
    expect((await create({ orderId: orderId(), amountKopecks: 100 }, key)).status).toBe(201);
    await expectError(await create({ orderId: orderId(), amountKopecks: 100 }, key), "post", "/v1/payments", 422);
    const unknown = "0198f0c4-6c1e-7a3b-9d2e-4f5a6b7c8d9e";
    await expectError(await api(`/v1/webhooks/deliveries/${unknown}/resend`, { method: "POST" }), "post", "/v1/webhooks/deliveries/{deliveryId}/resend", 404);
    await expectError(await api(`/v1/payments/${unknown}/webhooks`), "get", "/v1/payments/{id}/webhooks", 404);
  });

  test("409 for a second payment with the same orderId", async () => {
    const json = { orderId: orderId(), amountKopecks: 100 };
    expect((await api("/v1/payments", { method: "POST", json })).status).toBe(201);
    await expectError(await api("/v1/payments", { method: "POST", json }), "post", "/v1/payments", 409);
  });

  test("409 for a refund of an unpaid payment and for one above what is left", async () => {
    const created = Payment.parse(await (await api("/v1/payments", { method: "POST", json: { orderId: orderId(), amountKopecks: 5000 } })).json());
    const refund = (amountKopecks: number) => api(`/v1/payments/${created.id}/refunds`, { method: "POST", json: { amountKopecks } });
    const unpaid = await expectError(await refund(100), "post", "/v1/payments/{id}/refunds", 409);
    expect(unpaid).toMatchObject({ message: "only a SUCCESS payment can be refunded; it is CREATED", code: "REFUND_NOT_SUCCESS", params: { status: "CREATED" } });
    await stack.call(rpcs.payments.start, { id: created.id, method: "SBP" });
    await stack.call(rpcs.payments.sandboxOutcome, { id: created.id, outcome: "SUCCESS" });
    const over = await expectError(await refund(5001), "post", "/v1/payments/{id}/refunds", 409);
    expect(over).toMatchObject({
      message: "refund of 50.01 RUB (5001 kopecks) exceeds what is left to refund, 50.00 RUB (5000 kopecks) of 50.00 RUB (5000 kopecks); 0.00 RUB (0 kopecks) are in refunds still in progress",
      code: "REFUND_EXCEEDS_REFUNDABLE",
      params: { refundKopecks: 5001, refundableKopecks: 5000, paymentKopecks: 5000, refundingKopecks: 0 },
    });
  });

  test("413 and 415 for bodies the gateway does not read", async () => {
    const headers = { "Content-Type": "application/json" };
    await expectError(await api("/v1/payments", { method: "POST", headers, body: "x".repeat(200_000) }), "post", "/v1/payments", 413);
    await expectError(await api("/v1/payments", { method: "POST", headers: { "Content-Type": "text/plain" }, body: "{}" }), "post", "/v1/payments", 415);
  });

  test("429 with Retry-After once the balance limit is spent", async () => {
    const key = (await stack.createShop({ name: "Throttled" })).apiKey;
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 3; i++) {
      last = await api("/v1/balance", {}, key);
      statuses.push(last.status);
      if (i < 2) await last.body?.cancel();
    }
    expect(statuses).toEqual([200, 200, 429]);
    expect(Number(last!.headers.get("retry-after"))).toBeGreaterThan(0);
    await expectError(last!, "get", "/v1/balance", 429);
  });

  // Last on purpose: it takes the payments service down for the rest of the file.
  test("5xx when the owning service is down: the outcome-unknown answer", async () => {
    await stack.kill("payments");
    await expectError(await api("/v1/payments", { method: "POST", json: { orderId: orderId(), amountKopecks: 100 } }), "post", "/v1/payments", 503);
  });
});
