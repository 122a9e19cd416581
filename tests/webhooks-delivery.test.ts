import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rpcs, type WebhookDelivery } from "@payaccept/contracts";
import { verifyWebhook } from "@payaccept/sdk";
import { eventually, Stack } from "./harness/stack.ts";
import { failingFirst, startReceiver, type Receiver } from "../services/webhook-dispatcher/test-support/receiver.ts";
import {
  deliveryOf,
  paymentEvent,
  publishPaymentEvent,
  putShop,
  signaturesAreValid,
} from "../services/webhook-dispatcher/test-support/fixtures.ts";

const RETRY_DELAYS = [300, 600, 900, 1200, 1500, 1800];
const TIMEOUT_MS = 1000;

let stack: Stack;
const receivers: Receiver[] = [];
const receiver = (respond?: Parameters<typeof startReceiver>[0]) => {
  const r = startReceiver(respond);
  receivers.push(r);
  return r;
};

beforeAll(async () => {
  stack = await Stack.start({
    services: ["webhook-dispatcher"],
    env: { WEBHOOK_RETRY_DELAYS: RETRY_DELAYS.map((d) => `${d}ms`).join(","), WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS), WEBHOOK_ACK_WAIT: "3s" },
  });
});

afterAll(async () => {
  for (const r of receivers) r.stop();
  await stack?.stop();
});

const finished = (d: WebhookDelivery | undefined) => (d && d.result !== "pending" ? d : undefined);

/** Each attempt starts no earlier than the previous one ended plus the schedule's pause. */
function expectScheduleSpacing(d: WebhookDelivery) {
  const series = d.attempts.filter((a) => a.series === d.attempts.at(-1)!.series);
  for (let i = 1; i < series.length; i++) {
    const previous = series[i - 1]!;
    const earliest = Date.parse(previous.at) + previous.durationMs + RETRY_DELAYS[i - 1]!;
    expect(Date.parse(series[i]!.at)).toBeGreaterThanOrEqual(earliest);
  }
}

describe("webhook delivery", () => {
  test("a live payment's webhook carries the spec body, test: false, and both valid signatures", async () => {
    const r = receiver();
    const shop = await putShop(stack.nc, { webhookUrl: r.url });
    const event = paymentEvent(shop, { status: "SUCCESS", telegramId: null, metadata: null });
    await publishPaymentEvent(stack.nc, event);

    const delivery = await eventually(async () => finished(await deliveryOf(stack, shop.shopId, event.paymentId)));
    expect(delivery).toMatchObject({ result: "delivered", attemptCount: 1, status: "SUCCESS", orderId: event.orderId, lastError: null });
    expect(delivery.attempts[0]).toMatchObject({ series: 1, attempt: 1, httpStatus: 200, error: null });

    expect(r.requests).toHaveLength(1);
    const [request] = r.requests;
    expect(request!.headers["content-type"]).toBe("application/json");
    expect(signaturesAreValid(request!, shop.signingSecret)).toBe(true);
    expect(JSON.parse(request!.body)).toEqual({
      id: event.paymentId,
      orderId: event.orderId,
      status: "SUCCESS",
      amountKopecks: event.amountKopecks,
      telegramId: null,
      metadata: null,
      test: false,
    });
    const verified = verifyWebhook(request!.body, request!.headers, shop.signingSecret);
    expect(verified.ok).toBe(true);
  });
});
