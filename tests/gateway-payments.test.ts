import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Balance, ErrorBody, Payment, PaymentListPage, rpcs } from "@payaccept/contracts";
import { Stack, type ShopCreated, STACK_START_MS } from "./harness/stack.ts";

// Each test starts real processes; bunfig's [test] timeout is not applied by this Bun.
setDefaultTimeout(60_000);

let stack: Stack;
let shop: ShopCreated;
let other: ShopCreated;
beforeAll(async () => {
  stack = await Stack.start({ services: ["directory", "payments", "balance", "gateway"] });
  shop = await stack.createShop({ name: "Gateway shop", sandbox: true });
  other = await stack.createShop({ name: "Other shop" });
}, STACK_START_MS);
afterAll(() => stack.stop());

let n = 0;
const orderId = () => `gw-${Date.now()}-${++n}`;
const api = (key: string, path: string, init: RequestInit & { json?: unknown } = {}) =>
  stack.api(key, path, { signal: AbortSignal.timeout(10_000), ...init });
const create = (key: string, json: Record<string, unknown>) => api(key, "/v1/payments", { method: "POST", json });

async function ok<T>(res: Response, status: number, schema: { parse(v: unknown): T }): Promise<T> {
  const body = await res.json();
  expect({ status: res.status, body }).toMatchObject({ status });
  return schema.parse(body);
}
async function errorOf(res: Response, status: number) {
  expect(res.status).toBe(status);
  const body = ErrorBody.parse(await res.json());
  expect(body.statusCode).toBe(status);
  return body;
}
const newPayment = async (key: string, extra: Record<string, unknown> = {}) =>
  ok(await create(key, { orderId: orderId(), amountKopecks: 15000, ...extra }), 201, Payment);

describe("POST /v1/payments", () => {
  test("201 with the full Payment; telegramId comes back as a string", async () => {
    const id = orderId();
    const p = await ok(
      await create(shop.apiKey, { orderId: id, amountKopecks: 12345, telegramId: 987654321, metadata: { cart: [1] }, description: "Beans" }),
      201,
      Payment,
    );
    expect(p).toMatchObject({ orderId: id, status: "CREATED", amountKopecks: 12345, telegramId: "987654321", metadata: { cart: [1] }, isTest: true });
  });

  test("20 concurrent creates with one orderId: one 201, the rest 409", async () => {
    const id = orderId();
    const results = await Promise.all(Array.from({ length: 20 }, () => create(shop.apiKey, { orderId: id, amountKopecks: 10000 })));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, ...Array(19).fill(409)]);
    for (const r of results.filter((r) => r.status === 409)) await errorOf(r, 409);
    const found = await ok(await api(shop.apiKey, `/v1/payments?orderId=${id}`), 200, Payment);
    expect(found.orderId).toBe(id);
  });

  test("a method the shop does not offer is a 409", async () => {
    const cardOnly = await stack.createShop({ name: "Cards", methods: ["CARD"] });
    await errorOf(await create(cardOnly.apiKey, { orderId: orderId(), amountKopecks: 10000, method: "SBP" }), 409);
    await newPayment(cardOnly.apiKey, { method: "CARD" });
  });
});

describe("reading payments", () => {
  test("by id, and by orderId in lookup mode (one object; other parameters ignored)", async () => {
    const p = await newPayment(shop.apiKey);
    expect(await ok(await api(shop.apiKey, `/v1/payments/${p.id}`), 200, Payment)).toEqual(p);
    const looked = await ok(await api(shop.apiKey, `/v1/payments?orderId=${p.orderId}&page=0&limit=500&status=NOPE&from=x`), 200, Payment);
    expect(looked).toEqual(p);
  });

  test("unknown ids and orderIds are 404", async () => {
    await errorOf(await api(shop.apiKey, `/v1/payments/${Bun.randomUUIDv7()}`), 404);
    await errorOf(await api(shop.apiKey, `/v1/payments?orderId=${orderId()}`), 404);
  });

  test("another shop's payment is never visible: 404 for get, lookup and cancel", async () => {
    const p = await newPayment(shop.apiKey);
    await errorOf(await api(other.apiKey, `/v1/payments/${p.id}`), 404);
    await errorOf(await api(other.apiKey, `/v1/payments?orderId=${p.orderId}`), 404);
    await errorOf(await api(other.apiKey, `/v1/payments/${p.id}/cancel`, { method: "POST" }), 404);
    expect((await ok(await api(shop.apiKey, `/v1/payments/${p.id}`), 200, Payment)).status).toBe("CREATED");
  });

  test("list pages are oldest to newest, stable, and report the total", async () => {
    const own = await stack.createShop({ name: "Pages" });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await newPayment(own.apiKey)).id);
    const pages = [];
    for (let page = 1; page <= 3; page++) pages.push(await ok(await api(own.apiKey, `/v1/payments?limit=2&page=${page}`), 200, PaymentListPage));
    expect(pages.map((p) => [p.page, p.pageSize, p.total, p.items.length])).toEqual([
      [1, 2, 5, 2],
      [2, 2, 5, 2],
      [3, 2, 5, 1],
    ]);
    expect(pages.flatMap((p) => p.items.map((i) => i.id))).toEqual(ids);
    const beyond = await ok(await api(own.apiKey, "/v1/payments?limit=2&page=4"), 200, PaymentListPage);
    expect(beyond).toMatchObject({ items: [], total: 5, page: 4 });
    const defaults = await ok(await api(own.apiKey, "/v1/payments"), 200, PaymentListPage);
    expect(defaults).toMatchObject({ page: 1, pageSize: 20, total: 5 });

    await ok(await api(own.apiKey, `/v1/payments/${ids[1]}/cancel`, { method: "POST" }), 200, Payment);
    const canceled = await ok(await api(own.apiKey, "/v1/payments?status=CANCELED,SUCCESS"), 200, PaymentListPage);
    expect(canceled.items.map((i) => i.id)).toEqual([ids[1]!]);
    const window = await ok(
      await api(own.apiKey, `/v1/payments?from=2000-01-01T00:00:00Z&to=2000-12-31T23:59:59Z`),
      200,
      PaymentListPage,
    );
    expect(window.total).toBe(0);
  });
});

describe("POST /v1/payments/{id}/cancel", () => {
  test("cancels a CREATED payment and is idempotent", async () => {
    const p = await newPayment(shop.apiKey);
    const first = await ok(await api(shop.apiKey, `/v1/payments/${p.id}/cancel`, { method: "POST" }), 200, Payment);
    expect(first.status).toBe("CANCELED");
    const again = await ok(await api(shop.apiKey, `/v1/payments/${p.id}/cancel`, { method: "POST" }), 200, Payment);
    expect(again).toEqual(first);
    // The orderId stays occupied.
    await errorOf(await create(shop.apiKey, { orderId: p.orderId, amountKopecks: 10000 }), 409);
  });
});

describe("GET /v1/balance", () => {
  test("the account's balance, the same through every shop's key", async () => {
    const sibling = await stack.createShop({ name: "Sibling", accountId: shop.accountId, sandbox: true });
    const mine = await ok(await api(shop.apiKey, "/v1/balance"), 200, Balance);
    expect(await ok(await api(sibling.apiKey, "/v1/balance"), 200, Balance)).toEqual(mine);
    expect(await stack.call(rpcs.balance.get, { accountId: shop.accountId })).toEqual(mine);
  });
});

describe("when payments is down", () => {
  test("every payments call is a 503 in the Error shape, without hanging; it recovers with the service", async () => {
    await stack.kill("payments");
    const calls = [
      () => create(shop.apiKey, { orderId: orderId(), amountKopecks: 10000 }),
      () => api(shop.apiKey, `/v1/payments/${Bun.randomUUIDv7()}`),
      () => api(shop.apiKey, "/v1/payments?limit=5"),
      () => api(shop.apiKey, `/v1/payments/${Bun.randomUUIDv7()}/cancel`, { method: "POST" }),
    ];
    for (const call of calls) expect(await errorOf(await call(), 503)).toMatchObject({ message: "payments service unavailable", code: "SERVICE_UNAVAILABLE", params: { service: "payments" } });
    expect(stack.log("gateway")).toContain('"code":"UNAVAILABLE"');

    await stack.restart("payments");
    await newPayment(shop.apiKey);
  });
});
