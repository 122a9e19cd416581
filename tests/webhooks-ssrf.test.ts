import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { rpcs } from "@payaccept/contracts";
import type { Receiver } from "../services/webhook-dispatcher/test-support/receiver.ts";
import { paymentEvent, publishPaymentEvent, putShop } from "../services/webhook-dispatcher/test-support/fixtures.ts";
import { awaitDelivery, useDispatcherStack } from "../services/webhook-dispatcher/test-support/dispatcher-stack.ts";

// Real processes: the same per-test limit as infra/scripts/test.sh, also when run alone.
setDefaultTimeout(120_000);

// As in production: WEBHOOK_ALLOW_PRIVATE off (the harness turns it on for every other test).
const ctx = useDispatcherStack({ WEBHOOK_ALLOW_PRIVATE: "0", WEBHOOK_RETRY_DELAYS: "200ms" });
let receiver: Receiver;
beforeAll(() => {
  receiver = ctx.receiver();
});

describe("webhooks to private addresses, WEBHOOK_ALLOW_PRIVATE unset", () => {
  const port = () => new URL(receiver.url).port;
  test.each([
    ["loopback", () => `http://127.0.0.1:${port()}/webhooks`],
    ["loopback as one decimal number", () => `http://2130706433:${port()}/webhooks`],
    ["loopback in hex", () => `http://0x7f.0.0.1:${port()}/webhooks`],
    ["a name that resolves to loopback", () => `http://localhost:${port()}/webhooks`],
    ["IPv4-mapped IPv6 loopback", () => `http://[::ffff:127.0.0.1]:${port()}/webhooks`],
    ["a name with an empty label (two trailing dots)", () => `http://localhost..:${port()}/webhooks`],
  ])("%s is blocked: nothing is sent and the delivery ends as blocked, with the reason logged", async (_, url) => {
    const shop = await putShop(ctx.stack.nc, { webhookUrl: url() });
    const event = paymentEvent(shop);
    await publishPaymentEvent(ctx.stack.nc, event);

    const delivery = await awaitDelivery(ctx.stack, shop.shopId, event.paymentId);
    expect(delivery.result).toBe("blocked");
    expect(delivery).toMatchObject({ attemptCount: 1, nextAttemptAt: null });
    expect(delivery).toMatchObject({ lastErrorCode: "WEBHOOK_ADDRESS_BLOCKED", lastError: expect.stringMatching(/^blocked: .* is not a public address$/) });
    expect(delivery.attempts[0]).toMatchObject({ httpStatus: null, error: delivery.lastError });
    expect(ctx.stack.log("webhook-dispatcher")).toContain(`"deliveryId":"${delivery.id}"`);
    expect(receiver.requests).toHaveLength(0);
  });

  test("the test webhook is blocked too", async () => {
    const shop = await putShop(ctx.stack.nc, { webhookUrl: receiver.url });
    const result = await ctx.stack.call(rpcs.webhooks.test, { shopId: shop.shopId }, 10_000);
    expect(result).toMatchObject({ httpStatus: null });
    expect(result).toMatchObject({ errorCode: "WEBHOOK_ADDRESS_BLOCKED", error: expect.stringMatching(/^blocked: /) });
    expect(receiver.requests).toHaveLength(0);
  });
});
