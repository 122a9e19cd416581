import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { rpcs, type Payment } from "@payaccept/contracts";
import type { ServiceProcess } from "../infra/launcher/supervisor.ts";
import { ENGINES } from "./harness/engines.ts";
import { eventually, Stack } from "./harness/stack.ts";
import { newOrderId } from "./payments-fixtures.ts";
import { savedCard, shopWithReceiver, type LiveShop } from "./recurring-fixtures.ts";

/**
 * A call whose first copy waits on a slow step (the acquirer for a charge, the balance for a
 * refund) longer than the caller's NATS_HEDGE_AFTER (300 ms) is copied while it waits
 * (packages/platform/src/copies.ts). Each copy, on the replica that runs the first one or on the
 * other, answers the first copy's outcome, never the PENDING of a moment before it. Two payments
 * replicas on one store; the step is slowed by pausing the process behind it (SIGSTOP) for 700 ms,
 * less than payments' own timeouts for it, so the first copy ends the work.
 */
setDefaultTimeout(180_000);

const PAUSE_MS = 700;

describe.each(ENGINES)("copies of a call whose first copy is in a slow step (%s)", (engine) => {
  let stack: Stack;
  let second: ServiceProcess;
  let shop: LiveShop;
  let methodId: string;

  beforeAll(async () => {
    stack = await Stack.start({ services: ["directory", "gateway", "payments", "acquirer-emulator", "balance"], postgres: engine === "postgres" });
    second = await stack.addReplica("payments");
    shop = await shopWithReceiver(stack);
    ({ methodId } = await savedCard(stack, shop));
  });
  afterAll(async () => {
    // A test that failed midway must not leave a process stopped.
    for (const name of ["balance", "acquirer-emulator"] as const) stack?.service(name).proc?.kill("SIGCONT");
    shop?.receiver.stop();
    await stack?.stop();
  });

  /** `work` started while `name` is paused for PAUSE_MS. */
  async function whilePaused<T>(name: "balance" | "acquirer-emulator", work: () => Promise<T>): Promise<T> {
    stack.service(name).proc!.kill("SIGSTOP");
    const resumed = Bun.sleep(PAUSE_MS).then(() => stack.service(name).proc!.kill("SIGCONT"));
    try {
      return await work();
    } finally {
      await resumed;
    }
  }

  const charge = (capture = true) =>
    stack.call(rpcs.payments.create, { shopId: shop.shopId, request: { orderId: newOrderId(), amountKopecks: 50_000, paymentMethodId: methodId, capture } }, 10_000);

  /** Whether both replicas ran the create of this payment: a copy of its call landed on the replica that was not running the first. */
  const bothRan = (p: Payment) =>
    [stack.log("payments"), stack.replicaLog(second)].every((log) => log.split("\n").some((line) => line.includes('"rpc":"payments.v1.create"') && line.includes(`"paymentId":"${p.id}"`)));

  test("a charge's copies answer the acquirer's decision (SUCCESS), on either replica, not PENDING", async () => {
    const charged: Payment[] = [];
    for (let i = 0; i < 6; i++) {
      const p = await whilePaused("acquirer-emulator", charge);
      expect(p).toMatchObject({ merchantInitiated: true, status: "SUCCESS" });
      charged.push(p);
    }
    // Each charge's copies land on either replica at random (two copies or more each: odds of 1 in
    // 4 that none reached the other replica, 4⁻⁶ for six charges), which logs its answer a little
    // after the first copy's answer came.
    await eventually(() => charged.some(bothRan), 30_000);
  });

  test("a refund's copies, and a repeat with its key, answer the refund's end (SUCCEEDED), not PENDING", async () => {
    const paid = await charge();
    expect(paid.status).toBe("SUCCESS");
    const idempotencyKey = `refund-${crypto.randomUUID()}`;
    const refund = () => stack.call(rpcs.payments.refund, { shopId: shop.shopId, id: paid.id, amountKopecks: 20_000, idempotencyKey }, 10_000);
    const [first, repeat] = await whilePaused("balance", async () => {
      const first = refund();
      // Another call with the same key, once the first one has opened the refund: it finds it
      // PENDING, with no call of its own to join, on whichever replica, and reads it until it ends.
      await eventually(async () => (await stack.call(rpcs.payments.listRefunds, { shopId: shop.shopId, id: paid.id })).items.length === 1);
      return Promise.all([first, refund()]);
    });
    expect(first).toMatchObject({ status: "SUCCEEDED", amountKopecks: 20_000 });
    expect(repeat).toEqual(first);
    expect((await stack.call(rpcs.payments.listRefunds, { shopId: shop.shopId, id: paid.id })).items).toEqual([expect.objectContaining({ id: first.id, status: "SUCCEEDED" })]);
  });

  test("a capture's and a void's copies answer what the acquirer did (SUCCESS, CANCELED): such a copy asks it again or is handed the first copy's reply", async () => {
    const [toCapture, toVoid] = [await charge(false), await charge(false)];
    expect([toCapture.status, toVoid.status]).toEqual(["AUTHORIZED", "AUTHORIZED"]);
    const captured = await whilePaused("acquirer-emulator", () => stack.call(rpcs.payments.capture, { shopId: shop.shopId, id: toCapture.id, amountKopecks: 30_000 }, 10_000));
    expect(captured).toMatchObject({ status: "SUCCESS", amountKopecks: 30_000 });
    const voided = await whilePaused("acquirer-emulator", () => stack.call(rpcs.payments.cancel, { shopId: shop.shopId, id: toVoid.id }, 10_000));
    expect(voided).toMatchObject({ status: "CANCELED" });
  });
});
