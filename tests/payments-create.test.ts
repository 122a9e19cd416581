import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Payment, PaymentExtras, rpcs } from "@payaccept/contracts";
import { eventually, Stack, STACK_START_MS } from "./harness/stack.ts";
import { createPayment, createShop, failure, newOrderId, type TestShop } from "./payments-fixtures.ts";
import { ENGINES } from "./harness/engines.ts";

setDefaultTimeout(60_000);

describe.each(ENGINES)("payments create and reads on %s", (engine) => {
  let stack: Stack;
  let shop: TestShop;
  let other: TestShop;

  beforeAll(async () => {
    stack = await Stack.start({ services: ["directory", "payments"], postgres: engine === "postgres" });
    shop = await createShop(stack, { sandbox: true });
    other = await createShop(stack, { sandbox: false, methods: ["SBP"] });
  }, STACK_START_MS);
  afterAll(() => stack?.stop());

  describe("create", () => {
    test("returns the spec's Payment with every field", async () => {
      const orderId = newOrderId();
      const p = await createPayment(stack, shop.shopId, {
        orderId,
        amountKopecks: 123456,
        description: "Coffee beans",
        email: "buyer@example.com",
        telegramId: 123456789,
        metadata: { cart: [1, 2], note: "gift" },
        successUrl: "https://shop.example/ok",
        failUrl: "tg://resolve?domain=shop",
      });
      expect(Payment.parse(p)).toEqual(p);
      expect(p).toMatchObject({
        orderId,
        status: "CREATED",
        amountKopecks: 123456,
        // no method yet: the highest of the default tariff's SBP 0.7% and CARD 2.5%
        commissionKopecks: 3086,
        description: "Coffee beans",
        method: null,
        telegramId: "123456789",
        metadata: { cart: [1, 2], note: "gift" },
        successUrl: "https://shop.example/ok",
        failUrl: "tg://resolve?domain=shop",
        payUrl: `${stack.env.PUBLIC_PAYPAGE_URL}/pay/${p.id}`,
        isTest: true,
        paidAt: null,
      });
      // every field of the spec; the extras of saved methods, charges and holds only where they are used
      expect(Object.keys(p).sort()).toEqual(Object.keys(Payment.shape).filter((k) => !(k in PaymentExtras.shape)).sort());
      expect(await stack.call(rpcs.payments.get, { shopId: shop.shopId, id: p.id })).toEqual(p);
      expect(await stack.call(rpcs.payments.lookup, { shopId: shop.shopId, orderId })).toEqual(p);
    });

    test("optional fields come back as null, a live shop's payment is not a test", async () => {
      const p = await createPayment(stack, other.shopId, { amountKopecks: 100 });
      expect(p).toMatchObject({ description: null, telegramId: null, metadata: null, successUrl: null, failUrl: null, isTest: false });
      expect(p.commissionKopecks).toBe(1); // SBP only: 0.7 kopecks rounds half up to 1
    });

    test("a fixed method is kept and charged at its own rate", async () => {
      const p = await createPayment(stack, shop.shopId, { amountKopecks: 10000, method: "SBP" });
      expect(p).toMatchObject({ method: "SBP", commissionKopecks: 70 });
    });

    test("the shop's tariff decides the commission", async () => {
      const tariffed = await createShop(stack, {
        tariff: { SBP: { percentBp: 100, fixedKopecks: 10, minKopecks: 0 }, CARD: { percentBp: 200, fixedKopecks: 0, minKopecks: 500 } },
      });
      // the tariff is set by an update after the shop's creation; it reaches payments through the KV watch
      await eventually(async () => (await createPayment(stack, tariffed.shopId, { amountKopecks: 10000, method: "SBP" })).commissionKopecks === 110);
      expect((await createPayment(stack, tariffed.shopId, { amountKopecks: 10000, method: "CARD" })).commissionKopecks).toBe(500);
      expect((await createPayment(stack, tariffed.shopId, { amountKopecks: 10000 })).commissionKopecks).toBe(500);
    });

    test("a method the shop has not enabled is a conflict", async () => {
      expect(await failure(createPayment(stack, other.shopId, { method: "CARD" }))).toEqual({
        code: "CONFLICT",
        message: "method CARD is not available to this shop",
      });
    });

    test("an invalid request lists every problem", async () => {
      const f = await failure(
        stack.call(rpcs.payments.create, { shopId: shop.shopId, request: { orderId: "", amountKopecks: 99, email: "x" } }),
      );
      expect(f.code).toBe("BAD_REQUEST");
      expect(f.message).toEqual(expect.arrayContaining([expect.stringContaining("orderId"), expect.stringContaining("amountKopecks"), expect.stringContaining("email")]));
    });

    test("an inactive shop cannot create payments", async () => {
      const closed = await createShop(stack);
      await stack.call(rpcs.directory.setActive, { shopId: closed.shopId, active: false });
      // the directory change reaches payments through the KV watch
      expect(await eventually(() => failure(createPayment(stack, closed.shopId)))).toEqual({ code: "UNAUTHORIZED", message: "shop is not active" });
    });
  });

  describe("orderId is unique within a shop", () => {
    test("20 concurrent creates with one orderId: exactly one succeeds, the rest conflict", async () => {
      const orderId = newOrderId();
      const results = await Promise.allSettled(Array.from({ length: 20 }, () => createPayment(stack, shop.shopId, { orderId })));
      const ok = results.filter((r) => r.status === "fulfilled");
      const refused = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
      expect(ok).toHaveLength(1);
      expect(refused).toHaveLength(19);
      for (const r of refused) expect({ code: r.reason.code, message: r.reason.messages }).toEqual({ code: "CONFLICT", message: "a payment with this orderId already exists" });
      const found = await stack.call(rpcs.payments.lookup, { shopId: shop.shopId, orderId });
      expect(found.id).toBe((ok[0] as PromiseFulfilledResult<Payment>).value.id);
    });

    test("the same orderId in another shop is a different payment", async () => {
      const orderId = newOrderId();
      const a = await createPayment(stack, shop.shopId, { orderId });
      const b = await createPayment(stack, other.shopId, { orderId });
      expect(a.id).not.toBe(b.id);
    });
  });

  describe("reads are scoped to the shop", () => {
    test("another shop's payment is not found by id or orderId", async () => {
      const p = await createPayment(stack, shop.shopId);
      expect(await failure(stack.call(rpcs.payments.get, { shopId: other.shopId, id: p.id }))).toEqual({ code: "NOT_FOUND", message: "payment not found" });
      expect(await failure(stack.call(rpcs.payments.lookup, { shopId: other.shopId, orderId: p.orderId }))).toEqual({
        code: "NOT_FOUND",
        message: "payment not found",
      });
      expect(await failure(stack.call(rpcs.payments.cancel, { shopId: other.shopId, id: p.id }))).toEqual({ code: "NOT_FOUND", message: "payment not found" });
    });

    test("an unknown id or orderId is not found; a malformed id is a bad request", async () => {
      expect((await failure(stack.call(rpcs.payments.get, { shopId: shop.shopId, id: Bun.randomUUIDv7() }))).code).toBe("NOT_FOUND");
      expect((await failure(stack.call(rpcs.payments.lookup, { shopId: shop.shopId, orderId: "no-such-order" }))).code).toBe("NOT_FOUND");
      expect((await failure(stack.call(rpcs.payments.get, { shopId: shop.shopId, id: "not-a-uuid" }))).code).toBe("BAD_REQUEST");
    });
  });
});
