import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { ErrorBody, Payment, PaymentListPage } from "@payaccept/contracts";
import { ENGINES } from "./harness/engines.ts";
import { Stack, type ShopCreated, STACK_START_MS } from "./harness/stack.ts";
import { paidSandbox } from "./payments-fixtures.ts";

// Each test starts real processes; bunfig's [test] timeout is not applied by this Bun.
setDefaultTimeout(60_000);

/**
 * What a merchant's client may send that the stores see differently: characters PostgreSQL's text
 * cannot hold, UUIDs in capitals, a period's end written to the second. Both engines, because
 * each case reaches the store (a refused insert, a lookup, a range bound).
 */
describe.each(ENGINES)("merchant inputs with payments on %s", (engine) => {
  let stack: Stack;
  let shop: ShopCreated;
  beforeAll(async () => {
    stack = await Stack.start({ services: ["directory", "payments", "balance", "gateway"], postgres: engine === "postgres" });
    shop = await stack.createShop({ name: "Inputs shop", sandbox: true });
  }, STACK_START_MS);
  afterAll(() => stack.stop());

  let n = 0;
  const orderId = () => `in-${Date.now()}-${++n}`;
  const api = (path: string, init: RequestInit & { json?: unknown } = {}) => stack.api(shop.apiKey, path, { signal: AbortSignal.timeout(10_000), ...init });
  const create = (json: Record<string, unknown>) => api("/v1/payments", { method: "POST", json });
  async function issuesOf(res: Response) {
    const body = ErrorBody.parse(await res.json());
    expect({ status: res.status, code: body.code }).toEqual({ status: 400, code: "VALIDATION_FAILED" });
    return (body.params as { issues: { path: string; params: { rule?: string } }[] }).issues.map((i) => [i.path, i.params.rule]);
  }

  test("U+0000 in a text field is a 400 naming the field, never a 500 from the store", async () => {
    const res = await create({ orderId: "nul\u0000id", amountKopecks: 1000, description: "beans\u0000" });
    expect(await issuesOf(res)).toEqual([
      ["orderId", "NUL_CHARACTER"],
      ["description", "NUL_CHARACTER"],
    ]);
    expect(await issuesOf(await api(`/v1/payments?orderId=${encodeURIComponent("nul\u0000id")}`))).toEqual([["orderId", "NUL_CHARACTER"]]);
  });

  test("a refund's reason and a receipt line's name are text like every other string", async () => {
    const paid = await paidSandbox(stack, shop.shopId);
    for (const reason of ["\ud800", "one bag\u0000"]) {
      const res = await api(`/v1/payments/${paid.id}/refunds`, { method: "POST", json: { amountKopecks: 100, reason } });
      expect((await issuesOf(res))[0]).toEqual(["reason", reason === "\ud800" ? "LONE_SURROGATE" : "NUL_CHARACTER"]);
    }
    const receipt = { customer: { email: "buyer@example.com" }, taxation: "usn_income", items: [{ name: "Кофе \udc00", quantity: 1, priceKopecks: 1000, vat: "none" }] };
    expect(await issuesOf(await create({ orderId: orderId(), amountKopecks: 1000, receipt }))).toEqual([["receipt.items.0.name", "LONE_SURROGATE"]]);
    const refunds = (await (await api(`/v1/payments/${paid.id}/refunds`)).json()) as { items: unknown[] };
    expect(refunds.items).toEqual([]);
  });

  test("a payment's id in capitals names the same payment on every route", async () => {
    const paid = await paidSandbox(stack, shop.shopId);
    const upper = paid.id.toUpperCase();
    const got = await api(`/v1/payments/${upper}`);
    expect(got.status).toBe(200);
    expect(Payment.parse(await got.json()).id).toBe(paid.id);
    const refund = await api(`/v1/payments/${upper}/refunds`, { method: "POST", json: { amountKopecks: 500 } });
    expect(refund.status).toBe(201);
    const refunds = (await (await api(`/v1/payments/${upper}/refunds`)).json()) as { items: { paymentId: string }[] };
    expect(refunds.items.map((r) => r.paymentId)).toEqual([paid.id]);
    const open = Payment.parse(await (await create({ orderId: orderId(), amountKopecks: 1000 })).json());
    const canceled = await api(`/v1/payments/${open.id.toUpperCase()}/cancel`, { method: "POST" });
    expect({ status: canceled.status, payment: (await canceled.json()) as unknown }).toMatchObject({ status: 200, payment: { id: open.id, status: "CANCELED" } });
  });

  test("a period's to written to the second includes the payments of that whole second (§4.2: inclusive)", async () => {
    const p = Payment.parse(await (await create({ orderId: orderId(), amountKopecks: 1000 })).json());
    const second = p.createdAt.replace(/\.\d+Z$/, "Z");
    const page = PaymentListPage.parse(await (await api(`/v1/payments?from=${second}&to=${second}`)).json());
    expect(page.items.map((i) => i.id)).toContain(p.id);
    const before = new Date(Date.parse(second) - 1000).toISOString().replace(/\.\d+Z$/, "Z");
    const earlier = PaymentListPage.parse(await (await api(`/v1/payments?from=${before}&to=${before}`)).json());
    expect(earlier.items.map((i) => i.id)).not.toContain(p.id);
  });
});

