import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { eventually } from "./harness/stack.ts";
import { useDispatcherStack } from "../services/webhook-dispatcher/test-support/dispatcher-stack.ts";
import { deliveryLog, paymentEvent, publishPaymentEvent, putShop } from "../services/webhook-dispatcher/test-support/fixtures.ts";

// A real stack with hundreds of events: the same per-test limit as infra/scripts/test.sh, also when run alone.
setDefaultTimeout(120_000);

const TIMEOUT_MS = 1000;
const HANG_MS = 5000;
const A_EVENTS = 400;
const B_EVENTS = 20;

const ctx = useDispatcherStack({ WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS), WEBHOOK_ACK_WAIT: "3s" });

describe("head-of-line isolation", () => {
  test("a shop whose endpoint hangs, with hundreds of events queued ahead, does not hold back another shop's webhooks", async () => {
    const hanging = ctx.receiver(async () => {
      await Bun.sleep(HANG_MS);
      return new Response("too late");
    });
    // How many requests the hanging shop had received when the healthy shop's last webhook arrived.
    let hangingSeenAtLastB = -1;
    const healthy = ctx.receiver((_, i) => {
      if (i === B_EVENTS - 1) hangingSeenAtLastB = hanging.requests.length;
      return new Response("ok");
    });
    const shopA = await putShop(ctx.stack.nc, { webhookUrl: hanging.url });
    const shopB = await putShop(ctx.stack.nc, { webhookUrl: healthy.url });

    for (let i = 0; i < A_EVENTS; i++) await publishPaymentEvent(ctx.stack.nc, paymentEvent(shopA));
    const bEvents = Array.from({ length: B_EVENTS }, () => paymentEvent(shopB));
    for (const e of bEvents) await publishPaymentEvent(ctx.stack.nc, e);

    await eventually(() => healthy.requests.length === B_EVENTS, 60_000);
    // Every B webhook arrived before shop A's queue had even had its first attempts.
    expect(hangingSeenAtLastB).toBeGreaterThanOrEqual(0);
    expect(hangingSeenAtLastB).toBeLessThan(A_EVENTS);
    expect(new Set(healthy.requests.map((q) => JSON.parse(q.body).id))).toEqual(new Set(bEvents.map((e) => e.paymentId)));

    const bLog = await deliveryLog(ctx.stack, shopB.shopId);
    expect(bLog.map((d) => [d.result, d.attemptCount])).toEqual(bEvents.map(() => ["delivered", 1]));
    const aLog = await deliveryLog(ctx.stack, shopA.shopId);
    expect(aLog.some((d) => d.result === "pending" && d.attemptCount === 0)).toBe(true);
    expect(aLog.every((d) => d.result === "pending")).toBe(true);
  });
});
