import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { jetstream } from "@nats-io/jetstream";
import { DomainError, rpcs, WebhookDelivery } from "@payaccept/contracts";
import { createWebhookHandler, verifyWebhook } from "@payaccept/sdk";
import { eventually } from "./harness/stack.ts";
import { failingFirst, type ReceivedWebhook } from "../services/webhook-dispatcher/test-support/receiver.ts";
import {
  awaitDelivery,
  expectScheduleSpacing,
  retryDelaysEnv,
  useDispatcherStack,
} from "../services/webhook-dispatcher/test-support/dispatcher-stack.ts";
import { ENGINES } from "./harness/engines.ts";
import {
  adminJson,
  deliveryLog,
  deliveryOf,
  paymentEvent,
  publishPaymentEvent,
  putShop,
  signaturesAreValid,
} from "../services/webhook-dispatcher/test-support/fixtures.ts";

// Real processes and a real retry schedule: the same per-test limit as infra/scripts/test.sh, also when run alone.
setDefaultTimeout(120_000);

const RETRY_DELAYS = [300, 600, 900, 1200, 1500, 1800];
const TIMEOUT_MS = 1000;

describe.each(ENGINES)("webhook dispatcher on %s", (engine) => {
  const ctx = useDispatcherStack({
    WEBHOOK_RETRY_DELAYS: retryDelaysEnv(RETRY_DELAYS),
    WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
    WEBHOOK_ACK_WAIT: "3s",
  }, engine);
  const receiver = ctx.receiver;
  const awaitFinished = (shopId: string, paymentId: string) => awaitDelivery(ctx.stack, shopId, paymentId);

  /** X-Timestamp is the moment of that attempt, not of the first one. */
  function expectTimestampOfAttempt(request: ReceivedWebhook, attemptAt: string) {
    const ts = Number(request.headers["x-timestamp"]);
    expect(ts).toBeGreaterThanOrEqual(Math.floor(Date.parse(attemptAt) / 1000));
    expect(ts).toBeLessThanOrEqual(Math.ceil(request.at / 1000));
  }

  describe("what a webhook carries", () => {
    test("a live payment: the spec body with test: false, Content-Type, and both signatures valid", async () => {
      const r = receiver();
      const shop = await putShop(ctx.stack.nc, { webhookUrl: r.url });
      const event = paymentEvent(shop, { status: "SUCCESS" });
      await publishPaymentEvent(ctx.stack.nc, event);

      const delivery = await awaitFinished(shop.shopId, event.paymentId);
      expect(WebhookDelivery.parse(delivery)).toMatchObject({ result: "delivered", attemptCount: 1, status: "SUCCESS", orderId: event.orderId, lastError: null, nextAttemptAt: null });
      expect(delivery.attempts[0]).toMatchObject({ series: 1, attempt: 1, httpStatus: 200, error: null });

      expect(r.requests).toHaveLength(1);
      const request = r.requests[0]!;
      expect(request.headers["content-type"]).toBe("application/json");
      expect(request.headers["x-signature"]).toMatch(/^[0-9a-f]{64}$/);
      expect(request.headers["x-signature-v2"]).toMatch(/^[0-9a-f]{64}$/);
      expect(signaturesAreValid(request, shop.signingSecret)).toBe(true);
      expect(JSON.parse(request.body)).toEqual({
        id: event.paymentId,
        orderId: event.orderId,
        status: "SUCCESS",
        amountKopecks: event.amountKopecks,
        telegramId: event.telegramId,
        metadata: event.metadata,
        test: false,
      });
      expect(verifyWebhook(request.body, request.headers, shop.signingSecret)).toMatchObject({ ok: true, event: { id: event.paymentId } });
    });

    test("a sandbox payment's webhook says test: true; absent telegramId and metadata are null", async () => {
      const r = receiver();
      const shop = await putShop(ctx.stack.nc, { webhookUrl: r.url, sandbox: true });
      const event = paymentEvent(shop, { status: "FAILED", isTest: true, telegramId: null, metadata: null, paidAt: null });
      await publishPaymentEvent(ctx.stack.nc, event);

      await awaitFinished(shop.shopId, event.paymentId);
      expect(JSON.parse(r.requests[0]!.body)).toEqual({
        id: event.paymentId,
        orderId: event.orderId,
        status: "FAILED",
        amountKopecks: event.amountKopecks,
        telegramId: null,
        metadata: null,
        test: true,
      });
    });

    test("the same event published again (a relay re-publishing past the dedup window) makes no second delivery", async () => {
      const r = receiver();
      const shop = await putShop(ctx.stack.nc, { webhookUrl: r.url });
      const event = paymentEvent(shop, { status: "CANCELED" });
      await publishPaymentEvent(ctx.stack.nc, event);
      await awaitFinished(shop.shopId, event.paymentId);
      await publishPaymentEvent(ctx.stack.nc, { ...event, eventId: Bun.randomUUIDv7() }); // same Nats-Msg-Id: dropped by the stream
      await jetstream(ctx.stack.nc).publish("payments.events.CANCELED", JSON.stringify(event), { msgID: `${event.paymentId}:CANCELED:again` });
      // Intake is in stream order: once a later event is delivered, the duplicates were taken in.
      const marker = paymentEvent(shop, { status: "SUCCESS" });
      await publishPaymentEvent(ctx.stack.nc, marker);
      await awaitFinished(shop.shopId, marker.paymentId);

      expect(r.requests.map((q) => JSON.parse(q.body).id)).toEqual([event.paymentId, marker.paymentId]);
      expect(await deliveryLog(ctx.stack, shop.shopId, event.paymentId)).toHaveLength(1);
    });
  });

  describe("retries", () => {
    test("fails twice, then succeeds: exactly three attempts on the schedule, identical bytes, fresh signatures", async () => {
      const r = receiver(failingFirst(2, 500));
      const shop = await putShop(ctx.stack.nc, { webhookUrl: r.url });
      const event = paymentEvent(shop);
      await publishPaymentEvent(ctx.stack.nc, event);

      const delivery = await awaitFinished(shop.shopId, event.paymentId);
      expect(delivery).toMatchObject({ result: "delivered", attemptCount: 3, lastError: null });
      expect(delivery.attempts.map((a) => [a.httpStatus, a.error])).toEqual([
        [500, "HTTP 500"],
        [500, "HTTP 500"],
        [200, null],
      ]);
      expectScheduleSpacing(delivery, RETRY_DELAYS);
      expect(r.requests).toHaveLength(3);
      expect(new Set(r.requests.map((q) => q.body)).size).toBe(1);
      r.requests.forEach((q, i) => {
        expect(signaturesAreValid(q, shop.signingSecret)).toBe(true);
        expectTimestampOfAttempt(q, delivery.attempts[i]!.at);
      });
    });

    test("seven failures exhaust the delivery; a manual resend (admin CLI) sends the same body with a fresh signature", async () => {
      let accept = false;
      const r = receiver(() => new Response("down", { status: accept ? 200 : 503 }));
      const shop = await putShop(ctx.stack.nc, { webhookUrl: r.url });
      const event = paymentEvent(shop, { status: "REFUNDED" });
      await publishPaymentEvent(ctx.stack.nc, event);

      const exhausted = await awaitFinished(shop.shopId, event.paymentId);
      expect(exhausted).toMatchObject({ result: "exhausted", attemptCount: 7, lastError: "HTTP 503", nextAttemptAt: null });
      expectScheduleSpacing(exhausted, RETRY_DELAYS);
      expect(r.requests).toHaveLength(7);

      accept = true;
      const resent = WebhookDelivery.parse(await adminJson(ctx.stack, "webhooks:resend", "--shop", shop.shopId, "--delivery", exhausted.id));
      expect(resent).toMatchObject({ id: exhausted.id, result: "pending", attemptCount: 7 });
      const delivered = await awaitFinished(shop.shopId, event.paymentId);
      expect(delivered).toMatchObject({ result: "delivered", attemptCount: 8, lastError: null });
      expect(delivered.attempts.at(-1)).toMatchObject({ series: 2, attempt: 1, httpStatus: 200 });

      expect(r.requests).toHaveLength(8);
      const last = r.requests[7]!;
      expect(last.body).toBe(r.requests[0]!.body);
      expect(signaturesAreValid(last, shop.signingSecret)).toBe(true);
      expectTimestampOfAttempt(last, delivered.attempts.at(-1)!.at);

      const log = (await adminJson(ctx.stack, "webhooks:log", "--shop", shop.shopId, "--payment", event.paymentId)) as unknown[];
      expect(log.map((d) => WebhookDelivery.parse(d))).toEqual([delivered]);
    });

    test("a redirect is a failed attempt and is not followed", async () => {
      const elsewhere = receiver();
      const r = receiver((_, i) => (i === 0 ? Response.redirect(elsewhere.url, 302) : new Response("ok")));
      const shop = await putShop(ctx.stack.nc, { webhookUrl: r.url });
      const event = paymentEvent(shop);
      await publishPaymentEvent(ctx.stack.nc, event);

      const delivery = await awaitFinished(shop.shopId, event.paymentId);
      expect(delivery.attempts.map((a) => a.httpStatus)).toEqual([302, 200]);
      expect(delivery.attempts[0]!.error).toBe("HTTP 302: redirects are not followed");
      expect(elsewhere.requests).toHaveLength(0);
    });

    test("a receiver that does not answer within the timeout fails the attempt", async () => {
      const r = receiver(async (_, i) => {
        if (i === 0) await Bun.sleep(TIMEOUT_MS * 3);
        return new Response("ok");
      });
      const shop = await putShop(ctx.stack.nc, { webhookUrl: r.url });
      const event = paymentEvent(shop);
      await publishPaymentEvent(ctx.stack.nc, event);

      const delivery = await awaitFinished(shop.shopId, event.paymentId);
      expect(delivery.result).toBe("delivered");
      expect(delivery.attempts[0]).toMatchObject({ httpStatus: null, error: `no response within ${TIMEOUT_MS} ms` });
      expect(delivery.attempts[0]!.durationMs).toBeGreaterThanOrEqual(TIMEOUT_MS);
      expect(delivery.attempts[1]).toMatchObject({ httpStatus: 200 });
    });

    test("a shop without a webhook URL keeps its schedule; a URL set meanwhile gets the event", async () => {
      const shop = await putShop(ctx.stack.nc, { webhookUrl: null });
      const event = paymentEvent(shop);
      await publishPaymentEvent(ctx.stack.nc, event);
      const firstFailure = await awaitDelivery(ctx.stack, shop.shopId, event.paymentId, (d) => d.attemptCount >= 1);
      expect(firstFailure.attempts[0]).toMatchObject({ httpStatus: null, error: "no webhook URL configured" });

      const r = receiver();
      await putShop(ctx.stack.nc, { ...shop, webhookUrl: r.url });
      const delivery = await awaitFinished(shop.shopId, event.paymentId);
      expect(delivery.result).toBe("delivered");
      expect(r.requests).toHaveLength(1);
      expect(signaturesAreValid(r.requests[0]!, shop.signingSecret)).toBe(true);
    });
  });

  describe("receivers verify with the SDK", () => {
    test("a captured webhook verifies now and is refused as a replay more than 5 minutes later", async () => {
      const r = receiver();
      const shop = await putShop(ctx.stack.nc, { webhookUrl: r.url });
      const event = paymentEvent(shop);
      await publishPaymentEvent(ctx.stack.nc, event);
      await awaitFinished(shop.shopId, event.paymentId);

      const { body, headers } = r.requests[0]!;
      const sentAt = Number(headers["x-timestamp"]) * 1000;
      expect(verifyWebhook(body, headers, shop.signingSecret, { now: sentAt + 299_000 }).ok).toBe(true);
      expect(verifyWebhook(body, headers, shop.signingSecret, { now: sentAt + 301_000 })).toMatchObject({ ok: false, reason: "stale_timestamp" });
      expect(verifyWebhook(body, headers, "another secret")).toMatchObject({ ok: false, reason: "signature_mismatch" });
    });
  });

  describe("a merchant endpoint built with the SDK", () => {
    test("accepts the dispatcher's webhooks and hands each (id, status) on once, a manual resend included", async () => {
      const handled: { id: string; status: string; test: boolean }[] = [];
      const secret = "whsec_merchant_endpoint";
      const endpoint = Bun.serve({
        hostname: "127.0.0.1",
        port: 0,
        fetch: createWebhookHandler({ secret, onEvent: (e, c) => void handled.push({ id: e.id, status: e.status, test: c.test }) }),
      });
      try {
        const shop = await putShop(ctx.stack.nc, { webhookUrl: `http://127.0.0.1:${endpoint.port}/webhooks`, sandbox: true, signingSecret: secret });
        const event = paymentEvent(shop, { status: "SUCCESS" });
        await publishPaymentEvent(ctx.stack.nc, event);
        const first = await awaitFinished(shop.shopId, event.paymentId);
        expect(first).toMatchObject({ result: "delivered", attemptCount: 1 });

        await ctx.stack.call(rpcs.webhooks.resend, { shopId: shop.shopId, deliveryId: first.id });
        const resent = await awaitDelivery(ctx.stack, shop.shopId, event.paymentId, (d) => d.attemptCount === 2 && d.result !== "pending");
        expect(resent.attempts.map((a) => a.httpStatus)).toEqual([200, 200]);
        await eventually(() => handled.length > 0);
        expect(handled).toEqual([{ id: event.paymentId, status: "SUCCESS", test: true }]);
      } finally {
        endpoint.stop(true);
      }
    });
  });

  describe("test webhook", () => {
    test("returns the receiver's HTTP code and time; the body says test: true under an id that is not a UUID", async () => {
      const r = receiver(() => new Response(null, { status: 204 }));
      const shop = await putShop(ctx.stack.nc, { webhookUrl: r.url });

      const result = await ctx.stack.call(rpcs.webhooks.test, { shopId: shop.shopId }, 10_000);
      expect(result).toMatchObject({ httpStatus: 204, error: null });
      expect(result.durationMs).toBeGreaterThanOrEqual(0);
      expect(result.id).toMatch(/^test-/);

      expect(r.requests).toHaveLength(1);
      const body = JSON.parse(r.requests[0]!.body);
      expect(body).toMatchObject({ id: result.id, test: true, status: "SUCCESS", telegramId: null, metadata: null });
      expect(body.id).not.toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(signaturesAreValid(r.requests[0]!, shop.signingSecret)).toBe(true);
      expect(await deliveryLog(ctx.stack, shop.shopId)).toEqual([]);
    });

    test("reports a failing receiver, a shop without URL, and an unknown shop", async () => {
      const r = receiver(() => new Response("no", { status: 500 }));
      const shop = await putShop(ctx.stack.nc, { webhookUrl: r.url });
      expect(await adminJson(ctx.stack, "webhooks:test", "--shop", shop.shopId)).toMatchObject({ httpStatus: 500, error: "HTTP 500" });

      const silent = await putShop(ctx.stack.nc, { webhookUrl: null });
      expect(await ctx.stack.call(rpcs.webhooks.test, { shopId: silent.shopId }, 10_000)).toMatchObject({ httpStatus: null, error: "no webhook URL configured" });

      const unknown = await ctx.stack.call(rpcs.webhooks.test, { shopId: "no-such-shop" }, 10_000).catch((e) => e);
      expect(unknown).toBeInstanceOf(DomainError);
      expect(unknown.code).toBe("NOT_FOUND");
    });
  });

  describe("replay", () => {
    test("re-sends every event of the shop since the moment, with the same bodies, and nothing older", async () => {
      const r = receiver();
      const shop = await putShop(ctx.stack.nc, { webhookUrl: r.url });
      const since = Date.now() - 60_000;
      const old = paymentEvent(shop, { occurredAt: new Date(since - 3_600_000).toISOString() });
      const recent = [paymentEvent(shop, { status: "SUCCESS" }), paymentEvent(shop, { status: "EXPIRED" })];
      for (const e of [old, ...recent]) await publishPaymentEvent(ctx.stack.nc, e);
      for (const e of [old, ...recent]) await awaitFinished(shop.shopId, e.paymentId);
      const firstBodies = new Map(r.requests.map((q) => [JSON.parse(q.body).id as string, q.body]));

      const replayed = await adminJson(ctx.stack, "webhooks:replay", "--shop", shop.shopId, "--since", new Date(since).toISOString());
      expect(replayed).toEqual({ requeued: 2 });
      await eventually(() => r.requests.length === 5);
      for (const e of recent) {
        const d = await awaitFinished(shop.shopId, e.paymentId);
        expect(d).toMatchObject({ result: "delivered", attemptCount: 2 });
        expect(d.attempts.map((a) => [a.series, a.attempt])).toEqual([
          [1, 1],
          [2, 1],
        ]);
      }
      const again = r.requests.slice(3);
      expect(again.map((q) => q.body).sort()).toEqual(recent.map((e) => firstBodies.get(e.paymentId)!).sort());
      expect((await deliveryOf(ctx.stack, shop.shopId, old.paymentId))!.attemptCount).toBe(1);
    });

    test("a malformed moment is refused with every problem named", async () => {
      const err = await ctx.stack.call(rpcs.webhooks.replay, { shopId: "s", since: "yesterday" }).catch((e) => e);
      expect(err).toBeInstanceOf(DomainError);
      expect(err.code).toBe("BAD_REQUEST");
      expect(String(err.messages)).toContain("since");
    });
  });
});
