import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { ErrorBody, Refund, RefundList, rpcs, WebhookBody } from "@payaccept/contracts";
import { startReceiver, type Receiver } from "../services/webhook-dispatcher/test-support/receiver.ts";
import { ENGINES, sqliteRunOnly } from "./harness/engines.ts";
import { eventually, Stack, STACK_START_MS } from "./harness/stack.ts";
import { createShop, eventsOf, failure, paidSandbox, refundEventsOf, type TestShop } from "./payments-fixtures.ts";

/**
 * Refunds through the merchant API on a sandbox shop (no money moves, so the rules stand alone):
 * partial ones up to the amount, the payment's REFUNDED webhook sent once, the errors a merchant
 * sees, and idempotency keys under concurrency. The live saga is in refunds-recovery.test.ts. Once
 * on SQLite, once with every store on PostgreSQL.
 */
setDefaultTimeout(90_000);

describe.each(ENGINES)("refunds on %s", (engine) => {
  let stack: Stack;
  let receiver: Receiver;
  let shop: TestShop;

  beforeAll(async () => {
    stack = await Stack.start({ services: ["directory", "payments", "gateway", "webhook-dispatcher"], postgres: engine === "postgres" });
    receiver = startReceiver();
    shop = await createShop(stack, { sandbox: true });
    await stack.call(rpcs.directory.updateShop, { shopId: shop.shopId, webhookUrl: receiver.url });
  }, STACK_START_MS);
  afterAll(async () => {
    receiver?.stop();
    await stack?.stop();
  });

  const refundByApi = (id: string, json?: unknown, headers: Record<string, string> = {}) =>
    stack.api(shop.apiKey, `/v1/payments/${id}/refunds`, { method: "POST", json, headers });
  const webhooksOf = (id: string) => receiver.requests.map((r) => WebhookBody.parse(JSON.parse(r.body))).filter((b) => b.id === id);

  describe("partial refunds", () => {
    test("add up to the amount: the payment reports what is refunded, then becomes REFUNDED with one REFUNDED webhook", async () => {
      const p = await paidSandbox(stack, shop.shopId, { amountKopecks: 100_000 });
      const answer = await refundByApi(p.id, { amountKopecks: 25_000, reason: "one item returned" });
      expect(answer.status).toBe(201);
      const first = Refund.parse(await answer.json());
      expect(first).toMatchObject({ paymentId: p.id, amountKopecks: 25_000, status: "SUCCEEDED", reason: "one item returned" });
      const second = Refund.parse(await (await refundByApi(p.id, { amountKopecks: 25_000 })).json());
      const paying = await (await stack.api(shop.apiKey, `/v1/payments/${p.id}`)).json();
      expect(paying).toMatchObject({ status: "SUCCESS", refundedKopecks: 50_000 });

      const rest = Refund.parse(await (await refundByApi(p.id)).json());
      expect(rest.amountKopecks).toBe(50_000);
      expect(await (await stack.api(shop.apiKey, `/v1/payments/${p.id}`)).json()).toMatchObject({ status: "REFUNDED", refundedKopecks: 100_000 });

      const list = RefundList.parse(await (await stack.api(shop.apiKey, `/v1/payments/${p.id}/refunds`)).json());
      expect(list.items.map((r) => r.id)).toEqual([first.id, second.id, rest.id]);

      // Each refund has its event; the payment has one REFUNDED event and the merchant one REFUNDED webhook, body unchanged.
      // The outbox relay publishes after the answer, so the stream is awaited before it is read whole.
      await eventually(async () => (await eventsOf(stack, p.id)).some((e) => e.event.status === "REFUNDED"), 30_000);
      expect((await refundEventsOf(stack, p.id)).map((e) => e.event.refundedTotalKopecks)).toEqual([25_000, 50_000, 100_000]);
      expect((await eventsOf(stack, p.id)).map((e) => e.event.status)).toEqual(["SUCCESS", "REFUNDED"]);
      await eventually(() => webhooksOf(p.id).some((b) => b.status === "REFUNDED"), 30_000);
      await eventually(() => webhooksOf(p.id).some((b) => b.status === "SUCCESS"), 30_000);
      const refunded = webhooksOf(p.id).filter((b) => b.status === "REFUNDED");
      expect(refunded).toEqual([{ id: p.id, orderId: p.orderId, status: "REFUNDED", amountKopecks: 100_000, telegramId: null, metadata: null, test: true }]);
    });

    test("a refund above what is left, or of a fully refunded payment, is a 409 with its code and amounts the merchant can act on", async () => {
      const p = await paidSandbox(stack, shop.shopId, { amountKopecks: 10_000 });
      await refundByApi(p.id, { amountKopecks: 4_000 });
      const over = await refundByApi(p.id, { amountKopecks: 6_001 });
      expect(over.status).toBe(409);
      expect(ErrorBody.parse(await over.json())).toEqual({
        statusCode: 409,
        error: "Conflict",
        message:
          "refund of 60.01 RUB (6001 kopecks) exceeds what is left to refund, 60.00 RUB (6000 kopecks) of 100.00 RUB (10000 kopecks); 0.00 RUB (0 kopecks) are in refunds still in progress",
        code: "REFUND_EXCEEDS_REFUNDABLE",
        params: { refundKopecks: 6_001, refundableKopecks: 6_000, paymentKopecks: 10_000, refundingKopecks: 0 },
      });
      expect((await refundByApi(p.id)).status).toBe(201);
      const done = await refundByApi(p.id, { amountKopecks: 1 });
      expect(done.status).toBe(409);
      expect(await done.json()).toMatchObject({ code: "REFUND_ALREADY_FULL", message: "only a SUCCESS payment can be refunded; it is already fully refunded" });
    });

    // Refused before any write (the gateway's schema, the payment's owner): nothing the engines differ on.
    sqliteRunOnly(engine, () => {
      test("bad input is a 400 listing every problem; another shop's payment is a 404", async () => {
        const p = await paidSandbox(stack, shop.shopId);
        const bad = await refundByApi(p.id, { amountKopecks: 10.5, reason: "x".repeat(256) });
        expect(bad.status).toBe(400);
        expect(ErrorBody.parse(await bad.json()).message).toHaveLength(2);
        const stranger = await createShop(stack, { sandbox: true });
        const res = await stack.api(stranger.apiKey, `/v1/payments/${p.id}/refunds`, { method: "POST", json: {} });
        expect(res.status).toBe(404);
        expect((await stack.call(rpcs.payments.get, { shopId: shop.shopId, id: p.id })).refundedKopecks).toBe(0);
      });
    });
  });

  describe("idempotency", () => {
    test("the same idempotencyKey sent 20 times at once over RPC creates one refund", async () => {
      const p = await paidSandbox(stack, shop.shopId, { amountKopecks: 50_000 });
      const request = { shopId: shop.shopId, id: p.id, amountKopecks: 1_000, idempotencyKey: "refund-ticket-1" };
      const answers = await Promise.all(Array.from({ length: 20 }, () => stack.call(rpcs.payments.refund, request)));
      expect(new Set(answers.map((r) => r.id)).size).toBe(1);
      expect((await stack.call(rpcs.payments.listRefunds, { shopId: shop.shopId, id: p.id })).items).toHaveLength(1);
      expect((await stack.call(rpcs.payments.get, { shopId: shop.shopId, id: p.id })).refundedKopecks).toBe(1_000);
    });

    test("the API's Idempotency-Key keys the refund too: a retry returns the first refund", async () => {
      const p = await paidSandbox(stack, shop.shopId, { amountKopecks: 50_000 });
      const headers = { "Idempotency-Key": "refund-7f3a" };
      const first = Refund.parse(await (await refundByApi(p.id, { amountKopecks: 2_000 }, headers)).json());
      const again = Refund.parse(await (await refundByApi(p.id, { amountKopecks: 2_000 }, headers)).json());
      expect(again).toEqual(first);
      expect((await stack.call(rpcs.payments.get, { shopId: shop.shopId, id: p.id })).refundedKopecks).toBe(2_000);
    });

    test("without a key, concurrent refunds of one payment never refund more than its amount", async () => {
      const p = await paidSandbox(stack, shop.shopId, { amountKopecks: 10_000 });
      const results = await Promise.all(
        Array.from({ length: 10 }, () => stack.call(rpcs.payments.refund, { shopId: shop.shopId, id: p.id, amountKopecks: 3_000 }).catch((e: unknown) => e)),
      );
      expect(results.filter((r) => (r as Refund).status === "SUCCEEDED")).toHaveLength(3);
      const refusals = await Promise.all(results.filter((r) => r instanceof Error).map((e) => failure(Promise.reject(e))));
      expect(refusals.map((f) => f.code)).toEqual(Array(7).fill("CONFLICT"));
      expect(await stack.call(rpcs.payments.get, { shopId: shop.shopId, id: p.id })).toMatchObject({ status: "SUCCESS", refundedKopecks: 9_000 });
    });
  });
});
