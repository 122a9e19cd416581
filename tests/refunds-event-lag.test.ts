import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { DiscardPolicy, jetstreamManager } from "@nats-io/jetstream";
import { Payment, PAYMENTS_STREAM, Refund, rpcs } from "@payaccept/contracts";
import { BALANCE_DURABLE, BALANCE_REFUNDS_DURABLE } from "../services/balance/src/payment-event-consumer.ts";
import { ENGINES } from "./harness/engines.ts";
import { eventually, Stack } from "./harness/stack.ts";
import { BankApp, createShop, eventsOf, newOrderId, refundEventsOf, type TestShop } from "./payments-fixtures.ts";

/**
 * A merchant refunds a live payment in the very request after it became SUCCESS, before the
 * balance has read the payment's SUCCESS event from the stream (docs/balance.md, "A refund before
 * its payment's event"). The refund is never refused for that lag, and the ledger stays exact: the
 * payment is credited once whichever of the hold and the stream event comes first.
 */
setDefaultTimeout(180_000);

const CONVERGED_MS = 30_000;

describe.each(ENGINES)("a refund right after its payment's SUCCESS (%s)", (engine) => {
  let stack: Stack;
  let bank: BankApp;

  beforeAll(async () => {
    stack = await Stack.start({
      services: ["directory", "payments", "acquirer-emulator", "balance", "gateway"],
      postgres: engine === "postgres",
      // The refund is asked for in a tight loop until the payment is SUCCESS: a loaded machine must not turn that into 429s.
      env: { RATE_LIMIT_PER_METHOD: "100000", RATE_LIMIT_PER_IP: "100000" },
    });
    bank = new BankApp(stack);
  });
  afterAll(() => stack?.stop());

  /** A live SBP payment created through the API and paid in the bank app, the acquirer's callback maybe still on its way. */
  async function paying(shop: TestShop, amountKopecks: number): Promise<Payment> {
    const res = await stack.api(shop.apiKey, "/v1/payments", { method: "POST", json: { orderId: newOrderId(), amountKopecks, method: "SBP" } });
    expect(res.status).toBe(201);
    const created = Payment.parse(await res.json());
    const view = await stack.call(rpcs.payments.start, { id: created.id, method: "SBP" });
    await bank.sbp(view.sbp!.qrPayload, "pay");
    return created;
  }

  /**
   * Asks for the refund until the payment is SUCCESS, so the refund the API takes is the request
   * right after the payment became SUCCESS, racing the payment's event to the balance.
   */
  async function refundOnceSuccess(shop: TestShop, p: Payment, amountKopecks: number): Promise<Refund> {
    const answer = await eventually(
      async () => {
        const res = await stack.api(shop.apiKey, `/v1/payments/${p.id}/refunds`, { method: "POST", json: { amountKopecks } });
        const body = await res.json();
        return !(res.status === 409 && body.code === "REFUND_NOT_SUCCESS") && { status: res.status, body };
      },
      CONVERGED_MS,
      1,
    );
    expect(answer).toMatchObject({ status: 201, body: { amountKopecks, status: "SUCCEEDED" } });
    return Refund.parse(answer.body);
  }

  /** What a refund of part of a payment takes from the balance: the same part of its net receipt, rounded down. */
  const shareOf = (p: Payment, refundKopecks: number) => Math.floor((refundKopecks * (p.amountKopecks - p.commissionKopecks)) / p.amountKopecks);

  /**
   * Once every payment's SUCCESS and refund events are on the stream and both balance consumers
   * have applied everything: a receipt credited twice, or a refund taken twice, would show now.
   */
  async function balanceSettled(paid: Payment[], accountId: string): Promise<{ availableKopecks: number; frozenKopecks: number }> {
    await eventually(async () => {
      for (const p of paid) {
        if (!(await eventsOf(stack, p.id)).some((e) => e.event.status === "SUCCESS")) return false;
        if ((await refundEventsOf(stack, p.id)).length !== 1) return false;
      }
      return true;
    }, CONVERGED_MS);
    const jsm = await jetstreamManager(stack.nc);
    await eventually(async () => {
      for (const durable of [BALANCE_DURABLE, BALANCE_REFUNDS_DURABLE]) {
        const info = await jsm.consumers.info(PAYMENTS_STREAM, durable);
        if (info.num_pending > 0 || info.num_ack_pending > 0) return false;
      }
      return true;
    }, CONVERGED_MS);
    return stack.call(rpcs.balance.get, { accountId });
  }

  test("paid and refunded in the very next request, 12 times in a row: every refund 201 SUCCEEDED, the balance exact to the kopeck", async () => {
    const shop = await createShop(stack, { sandbox: false });
    const paid: Payment[] = [];
    let expectedFrozen = 0;
    for (let i = 0; i < 12; i++) {
      const p = await paying(shop, 100_000 + i * 1_001);
      const part = Math.floor(p.amountKopecks / 3);
      await refundOnceSuccess(shop, p, part);
      paid.push(p);
      expectedFrozen += p.amountKopecks - p.commissionKopecks - shareOf(p, part);
    }
    expect(await balanceSettled(paid, shop.accountId)).toMatchObject({ availableKopecks: 0, frozenKopecks: expectedFrozen });
  });

  test("with the payment's event held back from the stream: the refund succeeds at once, and the late event credits nothing more", async () => {
    const shop = await createShop(stack, { sandbox: false });
    const jsm = await jetstreamManager(stack.nc);
    const { config, state } = await jsm.streams.info(PAYMENTS_STREAM);
    // A full stream refuses new events: payments keeps the SUCCESS event in its outbox and the balance cannot have it.
    await jsm.streams.update(PAYMENTS_STREAM, { ...config, max_msgs: state.messages, discard: DiscardPolicy.New });
    let p: Payment;
    try {
      p = await paying(shop, 90_000);
      await refundOnceSuccess(shop, p, 30_000);
      expect(await eventsOf(stack, p.id)).toEqual([]);
    } finally {
      await jsm.streams.update(PAYMENTS_STREAM, config);
    }
    const net = p.amountKopecks - p.commissionKopecks;
    expect(await balanceSettled([p], shop.accountId)).toMatchObject({ availableKopecks: 0, frozenKopecks: net - shareOf(p, 30_000) });
  });
});
