import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { rpcs } from "@payaccept/contracts";
import { ApiError, createClient, type PayacceptClient } from "../packages/sdk/src/index.ts";
import { Stack, STACK_START_MS } from "./harness/stack.ts";

setDefaultTimeout(60_000);

/**
 * The merchant SDK against the real gateway, payments, balance and directory processes. The
 * lost-response cases put a real HTTP relay on 127.0.0.1 between the SDK and the gateway that
 * loses what a real network loses: the request before it arrives, or the answer after the
 * payment was created.
 */
let stack: Stack;
beforeAll(async () => {
  stack = await Stack.start({ services: ["directory", "gateway", "payments", "balance"] });
}, STACK_START_MS);
afterAll(() => stack?.stop());

let n = 0;
const orderId = () => `sdk-${Date.now()}-${++n}`;
async function newClient(baseUrl = stack.gateway, extra: { timeoutMs?: number } = {}): Promise<PayacceptClient> {
  const shop = await stack.createShop({ name: "SDK shop", sandbox: true });
  return createClient({ baseUrl, apiKey: shop.apiKey, recoveryDelayMs: 10, ...extra });
}

describe("every endpoint, typed", () => {
  test("create, read, find, list, cancel and balance", async () => {
    const sdk = await newClient();
    const order = orderId();
    const created = await sdk.createPayment({ orderId: order, amountKopecks: 12345, telegramId: 5, metadata: { k: "v" } });
    expect(created).toMatchObject({ orderId: order, status: "CREATED", amountKopecks: 12345, telegramId: "5", metadata: { k: "v" }, isTest: true });

    expect(await sdk.getPayment(created.id)).toEqual(created);
    expect(await sdk.findPaymentByOrderId(order)).toEqual(created);
    expect(await sdk.findPaymentByOrderId(orderId())).toBeNull();

    const second = await sdk.createPayment({ orderId: orderId(), amountKopecks: 500 });
    const page = await sdk.listPayments({ from: new Date(Date.parse(created.createdAt)), status: ["CREATED"], limit: 1, page: 2 });
    expect(page).toMatchObject({ total: 2, page: 2, pageSize: 1 });
    expect(page.items.map((p) => p.id)).toEqual([second.id]);

    const canceled = await sdk.cancelPayment(created.id);
    expect(canceled.status).toBe("CANCELED");
    expect(await sdk.cancelPayment(created.id)).toEqual(canceled);
    expect((await sdk.listPayments({ status: "CANCELED" })).items.map((p) => p.id)).toEqual([created.id]);

    expect(await sdk.getBalance()).toMatchObject({ availableKopecks: 0, frozenKopecks: 0 });
  });

  test("refusals arrive as ApiError with the server's reasons and request id", async () => {
    const sdk = await newClient();
    const order = orderId();
    await sdk.createPayment({ orderId: order, amountKopecks: 100 });

    const dup = await sdk.createPayment({ orderId: order, amountKopecks: 100 }).catch((e) => e);
    expect(dup).toBeInstanceOf(ApiError);
    expect(dup).toMatchObject({ statusCode: 409, outcomeUnknown: false });
    expect(dup.requestId).toMatch(/^[0-9a-f-]{36}$/);

    const invalid = await sdk.createPayment({ orderId: "", amountKopecks: 1 }).catch((e) => e);
    expect(invalid).toMatchObject({ statusCode: 400, error: "Bad Request" });
    expect(invalid.messages.length).toBeGreaterThanOrEqual(2);

    const wrongKey = createClient({ baseUrl: stack.gateway, apiKey: "not-a-key" });
    await expect(wrongKey.getBalance()).rejects.toMatchObject({ statusCode: 401 });
    await expect(sdk.getPayment("0198f0c4-6c1e-7a3b-9d2e-4f5a6b7c8d9e")).rejects.toMatchObject({ statusCode: 404 });
  });
});

describe("saved methods, charges and holds (a sandbox shop, completed from code)", () => {
  /** A method saved by a sandbox payment for `customerId`: the payment paid from code, as the buyer agreeing would. */
  async function savedMethod(sdk: PayacceptClient, customerId: string): Promise<string> {
    const p = await sdk.createPayment({ orderId: orderId(), amountKopecks: 10_000, savePaymentMethod: true, customerId });
    const paid = await sdk.completeSandboxPayment(p.id, { outcome: "SUCCESS" });
    expect(paid).toMatchObject({ status: "SUCCESS", savePaymentMethod: true, customerId, paymentMethod: { method: "CARD", card: { last4: "4242" } } });
    return paid.paymentMethod!.id;
  }

  test("save, charge, list a customer's methods page by page, revoke: then a charge is refused", async () => {
    const sdk = await newClient();
    const first = await savedMethod(sdk, "cust-1");
    const second = await savedMethod(sdk, "cust-1");
    await savedMethod(sdk, "cust-2");

    const charge = await sdk.createPayment({ orderId: orderId(), amountKopecks: 29_900, paymentMethodId: first });
    expect(charge).toMatchObject({ merchantInitiated: true, status: "PENDING", paymentMethod: { id: first } });
    expect(await sdk.completeSandboxPayment(charge.id, { outcome: "SUCCESS" })).toMatchObject({ status: "SUCCESS", amountKopecks: 29_900 });

    expect(await sdk.getPaymentMethod(first)).toMatchObject({ id: first, status: "ACTIVE", customerId: "cust-1", isTest: true });
    const page = await sdk.listPaymentMethods({ customerId: "cust-1", limit: 1 });
    expect(page).toMatchObject({ hasMore: true, items: [{ id: second }] });
    const all: string[] = [];
    for await (const m of sdk.iteratePaymentMethods({ customerId: "cust-1", limit: 1 })) all.push(m.id);
    expect(all).toEqual([second, first]);

    const revoked = await sdk.revokePaymentMethod(first);
    expect(revoked).toMatchObject({ id: first, status: "REVOKED", revokedBy: "MERCHANT" });
    expect(await sdk.revokePaymentMethod(first)).toEqual(revoked);
    const refused = await sdk.createPayment({ orderId: orderId(), amountKopecks: 100, paymentMethodId: first }).catch((e) => e);
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ statusCode: 409, code: "SAVED_METHOD_INACTIVE" });
    await expect(sdk.getPaymentMethod(crypto.randomUUID())).rejects.toMatchObject({ statusCode: 404 });
  });

  test("a charge the bank declines carries the reason a merchant acts on", async () => {
    const sdk = await newClient();
    const method = await savedMethod(sdk, "cust-3");
    const charge = await sdk.createPayment({ orderId: orderId(), amountKopecks: 5_000, paymentMethodId: method });
    expect(await sdk.completeSandboxPayment(charge.id, { outcome: "FAILED", failureCode: "INSUFFICIENT_FUNDS" })).toMatchObject({ status: "FAILED", failureCode: "INSUFFICIENT_FUNDS" });
  });

  test("hold, then capture part of it; another hold voided", async () => {
    const sdk = await newClient();
    const hold = await sdk.createPayment({ orderId: orderId(), amountKopecks: 100_000, capture: false });
    expect(hold).toMatchObject({ capture: false, heldKopecks: 100_000, method: "CARD" });
    const authorized = await sdk.completeSandboxPayment(hold.id, { outcome: "SUCCESS" });
    expect(authorized.status).toBe("AUTHORIZED");
    expect(Date.parse(authorized.captureDeadline!)).toBeGreaterThan(Date.now());

    const captured = await sdk.capturePayment(hold.id, { amountKopecks: 64_000 });
    expect(captured).toMatchObject({ status: "SUCCESS", amountKopecks: 64_000, heldKopecks: 100_000, captureDeadline: null });
    expect(await sdk.capturePayment(hold.id, { amountKopecks: 64_000 })).toEqual(captured);
    await expect(sdk.capturePayment(hold.id, { amountKopecks: 1_000 })).rejects.toMatchObject({ statusCode: 409, code: "HOLD_ALREADY_CAPTURED" });

    const other = await sdk.createPayment({ orderId: orderId(), amountKopecks: 20_000, capture: false });
    await sdk.completeSandboxPayment(other.id, { outcome: "SUCCESS" });
    expect(await sdk.cancelPayment(other.id)).toMatchObject({ status: "CANCELED", captureDeadline: null });
    await expect(sdk.capturePayment(other.id)).rejects.toMatchObject({ statusCode: 409, code: "PAYMENT_NOT_CAPTURABLE" });
  });
});

type Fault = "lose-request" | "lose-reply" | "replace-reply-with-502";

const isCreation = (method: string, path: string) => method === "POST" && path === "/api/v1/payments";

/** Relays to the gateway; the next requests `faulty` picks (creations by default) meet the given faults, everything else passes. */
function relay(faults: Fault[], faulty = isCreation) {
  const seen: string[] = [];
  const keys: (string | null)[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const url = new URL(req.url);
      seen.push(`${req.method} ${url.pathname}${url.search}`);
      if (req.method === "POST") keys.push(req.headers.get("idempotency-key"));
      const fault = faulty(req.method, url.pathname) ? faults.shift() : undefined;
      if (fault === "lose-request") return new Response("bad gateway", { status: 502 });
      const headers = new Headers(req.headers);
      headers.delete("host");
      const body = req.method === "POST" ? await req.arrayBuffer() : undefined;
      const res = await fetch(`${stack.url("gateway")}${url.pathname}${url.search}`, { method: req.method, headers, body });
      if (!fault) return res;
      await res.arrayBuffer(); // the payment exists now; its answer goes no further
      if (fault === "replace-reply-with-502") return new Response("bad gateway", { status: 502 });
      // Hold the connection until the client gives up, as a dead link would.
      await new Promise<void>((resolve) => AbortSignal.any([req.signal, AbortSignal.timeout(30_000)]).addEventListener("abort", () => resolve()));
      return new Response(null, { status: 504 });
    },
  });
  return { url: `http://127.0.0.1:${server.port}/api`, seen, keys, stop: () => server.stop(true) };
}

describe("recovery after an unknown outcome (spec §7), over a lossy link", () => {
  async function recover(fault: Fault, timeoutMs?: number) {
    const link = relay([fault]);
    try {
      const sdk = await newClient(link.url, { timeoutMs });
      const order = orderId();
      const payment = await sdk.createPayment({ orderId: order, amountKopecks: 4200 });
      const all = await sdk.listPayments({ limit: 100 });
      return { order, payment, all, seen: link.seen };
    } finally {
      link.stop();
    }
  }

  test("the answer is lost after the payment was made: the SDK finds it and creates nothing more", async () => {
    const r = await recover("lose-reply", 2000);
    expect(r.payment).toMatchObject({ orderId: r.order, amountKopecks: 4200, status: "CREATED" });
    expect(r.all.items.map((p) => p.id)).toEqual([r.payment.id]);
    expect(r.seen.slice(0, 2)).toEqual(["POST /api/v1/payments", `GET /api/v1/payments?orderId=${r.order}`]);
  });

  test("a 5xx after the payment was made: the SDK finds it", async () => {
    const r = await recover("replace-reply-with-502");
    expect(r.all.items.map((p) => p.id)).toEqual([r.payment.id]);
    expect(r.seen.filter((s) => s.startsWith("POST"))).toHaveLength(1);
  });

  test("a 5xx before the request arrived: the lookup says 404 and the SDK creates it with the same orderId", async () => {
    const r = await recover("lose-request");
    expect(r.payment.orderId).toBe(r.order);
    expect(r.all.items.map((p) => p.id)).toEqual([r.payment.id]);
    expect(r.seen.slice(0, 3)).toEqual(["POST /api/v1/payments", `GET /api/v1/payments?orderId=${r.order}`, "POST /api/v1/payments"]);
  });
});

describe("a write whose answer is lost is retried under its Idempotency-Key and takes effect once", () => {
  test("a partial refund: the retry gets the first refund back, the payment is refunded once", async () => {
    const shop = await stack.createShop({ name: "SDK refunds", sandbox: true, methods: ["SBP"] });
    const direct = createClient({ baseUrl: stack.gateway, apiKey: shop.apiKey });
    const payment = await direct.createPayment({ orderId: orderId(), amountKopecks: 30_000 });
    await stack.call(rpcs.payments.start, { id: payment.id, method: "SBP" });
    await stack.call(rpcs.payments.sandboxOutcome, { id: payment.id, outcome: "SUCCESS" });

    const refunds = `/api/v1/payments/${payment.id}/refunds`;
    const link = relay(["lose-reply"], (method, path) => method === "POST" && path === refunds);
    try {
      const sdk = createClient({ baseUrl: link.url, apiKey: shop.apiKey, timeoutMs: 2000, retryDelayMs: 10 });
      const refund = await sdk.createRefund(payment.id, { amountKopecks: 10_000, reason: "lost answer" });
      expect(refund).toMatchObject({ paymentId: payment.id, amountKopecks: 10_000, status: "SUCCEEDED" });
      expect(link.seen).toEqual([`POST ${refunds}`, `POST ${refunds}`]);
      expect(link.keys[0]).toBeTruthy();
      expect(link.keys[1]).toBe(link.keys[0]!);
      expect((await direct.listRefunds(payment.id)).items.map((r) => r.id)).toEqual([refund.id]);
      expect(await direct.getPayment(payment.id)).toMatchObject({ status: "SUCCESS", refundedKopecks: 10_000 });
    } finally {
      link.stop();
    }
  });
});
