import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { jetstreamManager, type JetStreamManager } from "@nats-io/jetstream";
import { PAYMENTS_STREAM } from "@payaccept/contracts";
import { BALANCE_DURABLE } from "../services/balance/src/payment-event-consumer.ts";
import { DISPATCH_STREAM, DURABLE } from "../services/webhook-dispatcher/src/bus/streams.ts";
import { Stack } from "./harness/stack.ts";

setDefaultTimeout(120_000);

const SECOND_NS = 1_000_000_000;
let stack: Stack;
let jsm: JetStreamManager;
beforeAll(async () => {
  stack = await Stack.start({ services: ["balance", "webhook-dispatcher"], env: { WEBHOOK_MAX_ACK_PENDING: "5000" } });
  jsm = await jetstreamManager(stack.nc);
});
afterAll(() => stack.stop());

const config = async (stream: string, durable: string) => (await jsm.consumers.info(stream, durable)).config;

test("a service brings its existing durable's settings up to date at start (balance and the dispatcher alike)", async () => {
  // What an earlier release (or an operator's hand) left behind.
  await jsm.consumers.update(PAYMENTS_STREAM, BALANCE_DURABLE, { ack_wait: 99 * SECOND_NS, max_ack_pending: 3 });
  await jsm.consumers.update(DISPATCH_STREAM, DURABLE, { max_ack_pending: 7 });
  expect(await config(PAYMENTS_STREAM, BALANCE_DURABLE)).toMatchObject({ ack_wait: 99 * SECOND_NS, max_ack_pending: 3 });

  await stack.restart("balance");
  await stack.restart("webhook-dispatcher");

  expect(await config(PAYMENTS_STREAM, BALANCE_DURABLE)).toMatchObject({ ack_wait: 10 * SECOND_NS, max_ack_pending: 1000 });
  expect(await config(DISPATCH_STREAM, DURABLE)).toMatchObject({ max_ack_pending: 5000 });
  expect(stack.log("balance")).toContain("durable consumer settings updated");

  // Unchanged settings are left alone: no update at the next start (each start writes a new log).
  await stack.restart("balance");
  expect(stack.log("balance")).toContain("balance service ready");
  expect(stack.log("balance")).not.toContain("durable consumer settings updated");
});
