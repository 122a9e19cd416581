import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { jetstreamManager } from "@nats-io/jetstream";
import { rpcs } from "@payaccept/contracts";
import { DISPATCH_STREAM, DURABLE } from "../services/webhook-dispatcher/src/bus/streams.ts";
import { startReceiver, type Receiver } from "../services/webhook-dispatcher/test-support/receiver.ts";
import { deliveryLog } from "../services/webhook-dispatcher/test-support/fixtures.ts";
import { eventually, Stack } from "./harness/stack.ts";

/**
 * SIGTERM lets work in hand finish: a webhook attempt in flight when the dispatcher is told to
 * stop is completed, logged and acknowledged before the process exits, so it is neither lost nor
 * made again by the next process.
 */
// Real processes: the same per-test limit as infra/scripts/test.sh, also when run alone.
setDefaultTimeout(120_000);

let stack: Stack;
let receiver: Receiver;
let answer: () => void;
const answered = new Promise<void>((resolve) => (answer = resolve));

beforeAll(async () => {
  stack = await Stack.start({ services: ["directory", "payments", "webhook-dispatcher"] });
  // The merchant's endpoint holds its reply until the test lets it answer.
  receiver = startReceiver(async () => {
    await answered;
    return new Response("ok");
  });
});
afterAll(async () => {
  answer?.();
  receiver?.stop();
  await stack?.stop();
});

test("a webhook attempt in flight at SIGTERM finishes, is logged once and is not made again", async () => {
  const shop = await stack.createShop({ name: "Graceful", webhookUrl: receiver.url });
  const payment = await eventually(() => stack.call(rpcs.payments.create, { shopId: shop.shopId, request: { orderId: "graceful-1", amountKopecks: 5000 } }));
  await stack.call(rpcs.payments.cancel, { shopId: shop.shopId, id: payment.id });
  await eventually(() => receiver.requests.length === 1);

  const dispatcher = stack.service("webhook-dispatcher");
  const stopped = dispatcher.stop("SIGTERM", 20_000);
  await eventually(() => stack.log("webhook-dispatcher").includes('"msg":"shutting down"'));
  expect(dispatcher.proc!.exitCode).toBeNull(); // still waiting for the merchant
  answer();
  await stopped;
  expect(dispatcher.proc!.exitCode).toBe(0);

  // The attempt's message was acknowledged: the work queue holds nothing that could send it again.
  const consumer = await (await jetstreamManager(stack.nc)).consumers.info(DISPATCH_STREAM, DURABLE);
  expect({ pending: consumer.num_pending, ackPending: consumer.num_ack_pending }).toEqual({ pending: 0, ackPending: 0 });

  dispatcher.start();
  await dispatcher.waitReady();
  const [delivery] = await deliveryLog(stack, shop.shopId, payment.id);
  expect(delivery).toMatchObject({ status: "CANCELED", result: "delivered", attemptCount: 1 });
  expect(delivery!.attempts.map((a) => a.httpStatus)).toEqual([200]);
  expect(receiver.requests).toHaveLength(1);
});
