import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { eventually } from "./harness/stack.ts";
import { paymentEvent, publishPaymentEvent, putShop } from "../services/webhook-dispatcher/test-support/fixtures.ts";
import {
  awaitDelivery,
  expectScheduleSpacing,
  retryDelaysEnv,
  useDispatcherStack,
} from "../services/webhook-dispatcher/test-support/dispatcher-stack.ts";
import { ENGINES } from "./harness/engines.ts";

// Kills and restarts a real dispatcher: the same per-test limit as infra/scripts/test.sh, also when run alone.
setDefaultTimeout(120_000);

const RETRY_DELAYS = [1000, 1500, 2000, 2500, 3000, 3500];
const TIMEOUT_MS = 5000;

describe.each(ENGINES)("webhook dispatcher on %s", (engine) => {
  const ctx = useDispatcherStack({
    WEBHOOK_RETRY_DELAYS: retryDelaysEnv(RETRY_DELAYS),
    WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
    WEBHOOK_ACK_WAIT: "6s",
  }, engine);

  describe("a dispatcher killed with SIGKILL", () => {
    test("between attempts: after restart the schedule goes on with no attempt lost or added", async () => {
      const r = ctx.receiver((_, i) => new Response(null, { status: i < 3 ? 500 : 200 }));
      const shop = await putShop(ctx.stack.nc, { webhookUrl: r.url });
      const event = paymentEvent(shop);
      await publishPaymentEvent(ctx.stack.nc, event);

      await awaitDelivery(ctx.stack, shop.shopId, event.paymentId, (d) => d.attemptCount >= 2);
      await ctx.stack.kill("webhook-dispatcher");
      await ctx.stack.restart("webhook-dispatcher");

      const d = await awaitDelivery(ctx.stack, shop.shopId, event.paymentId, (d) => d.result === "delivered");
      expect(d.attempts.map((a) => [a.series, a.attempt, a.httpStatus])).toEqual([
        [1, 1, 500],
        [1, 2, 500],
        [1, 3, 500],
        [1, 4, 200],
      ]);
      expectScheduleSpacing(d, RETRY_DELAYS);
      expect(r.requests).toHaveLength(4);
    });

    test("during an attempt: the unanswered attempt is made again (at least once) and logged once", async () => {
      let release!: () => void;
      const hang = new Promise<void>((resolve) => (release = resolve));
      const r = ctx.receiver(async (_, i) => {
        if (i === 1) await hang;
        return new Response(null, { status: i < 3 ? 500 : 200 });
      });
      const shop = await putShop(ctx.stack.nc, { webhookUrl: r.url });
      const event = paymentEvent(shop);
      await publishPaymentEvent(ctx.stack.nc, event);

      await eventually(() => r.requests.length === 2);
      await ctx.stack.kill("webhook-dispatcher");
      release();
      await ctx.stack.restart("webhook-dispatcher");

      const d = await awaitDelivery(ctx.stack, shop.shopId, event.paymentId, (d) => d.result === "delivered");
      // Requests 2 and 3 are both attempt 2: the first one's answer died with the process.
      expect(r.requests).toHaveLength(4);
      expect(new Set(r.requests.map((q) => q.body)).size).toBe(1);
      expect(d.attempts.map((a) => [a.attempt, a.httpStatus])).toEqual([
        [1, 500],
        [2, 500],
        [3, 200],
      ]);
      expectScheduleSpacing(d, RETRY_DELAYS);
    });
  });

  describe("NATS losing its store", () => {
    test("the dispatcher exits, and once restarted publishes its pending deliveries again: none is lost", async () => {
      const r = ctx.receiver((_, i) => new Response(null, { status: i === 0 ? 500 : 200 }));
      const shop = await putShop(ctx.stack.nc, { webhookUrl: r.url });
      const event = paymentEvent(shop);
      await publishPaymentEvent(ctx.stack.nc, event);
      await awaitDelivery(ctx.stack, shop.shopId, event.paymentId, (d) => d.attemptCount === 1);

      await ctx.stack.nats.stop();
      rmSync(join(ctx.stack.dataDir, "jetstream"), { recursive: true, force: true });
      await ctx.stack.startNats();
      // The directory service publishes the directory again; here the test stands in for it.
      await eventually(async () => putShop(ctx.stack.nc, shop));
      expect(await ctx.stack.service("webhook-dispatcher").proc!.exited).toBe(0);
      ctx.stack.service("webhook-dispatcher").start();
      await ctx.stack.service("webhook-dispatcher").waitReady();

      const d = await awaitDelivery(ctx.stack, shop.shopId, event.paymentId, (x) => x.result === "delivered");
      expect(d.attempts.map((a) => [a.attempt, a.httpStatus])).toEqual([
        [1, 500],
        [2, 200],
      ]);
      expectScheduleSpacing(d, RETRY_DELAYS);
      expect(r.requests).toHaveLength(2);
    });
  });
});
