import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { rpcs, type Payment } from "@payaccept/contracts";
import { verifyWebhook } from "@payaccept/sdk";
import { eventually, Stack } from "./harness/stack.ts";
import { startReceiver, type Receiver } from "../services/webhook-dispatcher/test-support/receiver.ts";
import { deliveryLog, signaturesAreValid } from "../services/webhook-dispatcher/test-support/fixtures.ts";

// The real directory owner, payments service and dispatcher: the same per-test limit as infra/scripts/test.sh, also when run alone.
setDefaultTimeout(120_000);

let stack: Stack;
let receiver: Receiver;

beforeAll(async () => {
  stack = await Stack.start({ services: ["directory", "payments", "webhook-dispatcher"] });
  receiver = startReceiver();
});

afterAll(async () => {
  receiver?.stop();
  await stack?.stop();
});

let orders = 0;
/** A payment of the shop, retried while the new shop is still on its way to payments through the directory watch. */
const createPayment = (shopId: string, request: { telegramId?: number; metadata?: Record<string, unknown> } = {}) =>
  eventually(() =>
    stack.call(rpcs.payments.create, { shopId, request: { orderId: `e2e-${Date.now()}-${++orders}`, amountKopecks: 4990, ...request } }),
  );
const cancel = (shopId: string, payment: Payment) => stack.call(rpcs.payments.cancel, { shopId, id: payment.id });
const webhooksOf = (paymentId: string) => receiver.requests.filter((r) => JSON.parse(r.body).id === paymentId);

describe("a payment canceled through the payments service", () => {
  test("reaches the shop's endpoint once as a signed CANCELED webhook, whatever the repeated cancels", async () => {
    const shop = await stack.createShop({ name: "E2E shop", sandbox: false, webhookUrl: receiver.url });
    const payment = await createPayment(shop.shopId, { telegramId: 777, metadata: { cart: "A-1" } });
    expect((await cancel(shop.shopId, payment)).status).toBe("CANCELED");
    expect((await cancel(shop.shopId, payment)).status).toBe("CANCELED");

    // A later payment's webhook arriving means the repeated cancel had its chance to produce one.
    const later = await createPayment(shop.shopId);
    await cancel(shop.shopId, later);
    await eventually(() => webhooksOf(later.id).length === 1);

    const received = webhooksOf(payment.id);
    expect(received).toHaveLength(1);
    expect(JSON.parse(received[0]!.body)).toEqual({
      id: payment.id,
      orderId: payment.orderId,
      status: "CANCELED",
      amountKopecks: 4990,
      telegramId: "777",
      metadata: { cart: "A-1" },
      test: false,
    });
    expect(signaturesAreValid(received[0]!, shop.signingSecret)).toBe(true);
    expect(verifyWebhook(received[0]!.body, received[0]!.headers, shop.signingSecret).ok).toBe(true);

    const log = await deliveryLog(stack, shop.shopId, payment.id);
    expect(log.map((d) => [d.status, d.result, d.attemptCount])).toEqual([["CANCELED", "delivered", 1]]);
  });

  test("a sandbox shop's webhook says test: true", async () => {
    const shop = await stack.createShop({ name: "E2E sandbox", sandbox: true, webhookUrl: receiver.url });
    const payment = await createPayment(shop.shopId);
    await cancel(shop.shopId, payment);
    await eventually(() => webhooksOf(payment.id).length === 1);
    expect(JSON.parse(webhooksOf(payment.id)[0]!.body)).toMatchObject({ status: "CANCELED", test: true, telegramId: null, metadata: null });
  });
});
