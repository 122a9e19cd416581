import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { PAYMENT_EVENTS_SUBJECT_PREFIX, PAYMENTS_STREAM, refundEventSubject } from "@payaccept/contracts";
import { ensurePaymentsStream } from "@payaccept/platform";
import { Stack, STACK_START_MS } from "./harness/stack.ts";

setDefaultTimeout(60_000);

let stack: Stack;
beforeAll(async () => {
  stack = await Stack.start({ services: [] });
}, STACK_START_MS);
afterAll(() => stack?.stop());

test("a PAYMENTS stream made before refund events gains their subject at the next start, keeping its messages", async () => {
  const jsm = await jetstreamManager(stack.nc);
  await jsm.streams.add({ name: PAYMENTS_STREAM, subjects: [`${PAYMENT_EVENTS_SUBJECT_PREFIX}.>`], duplicate_window: 10 * 60 * 1e9 });
  const js = jetstream(stack.nc);
  await js.publish(`${PAYMENT_EVENTS_SUBJECT_PREFIX}.SUCCESS`, "{}", { msgID: "old" });
  await expect(js.publish(refundEventSubject("SUCCEEDED"), "{}", { timeout: 1000 })).rejects.toThrow();

  await ensurePaymentsStream(stack.nc);
  await ensurePaymentsStream(stack.nc);
  const { config, state } = await jsm.streams.info(PAYMENTS_STREAM);
  expect(config.subjects).toEqual(["payments.events.>", "payments.refunds.>"]);
  expect(state.messages).toBe(1);
  expect((await js.publish(refundEventSubject("SUCCEEDED"), "{}", { msgID: "refund:x" })).stream).toBe(PAYMENTS_STREAM);
});
