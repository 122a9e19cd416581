import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { jetstreamManager } from "@nats-io/jetstream";
import { Balance, PAYMENTS_STREAM, paymentEventSubject, Refund, rpcs } from "@payaccept/contracts";
import { BalanceFeed } from "./balance-fixtures.ts";
import { ENGINES } from "./harness/engines.ts";
import { eventually, Stack, STACK_START_MS } from "./harness/stack.ts";

/**
 * Real money through every piece: a live SBP payment paid in the acquirer emulator's bank app,
 * the payments outbox, the stream, the ledger, GET /v1/balance through the gateway with the keys of
 * two shops of one account, and partial refunds through the API that take the receipt back. Once
 * on SQLite, once with every store on PostgreSQL.
 */
// Each test starts real processes; bunfig's [test] timeout is not applied by this Bun.
setDefaultTimeout(90_000);

describe.each(ENGINES)("money end to end on %s", (engine) => {
  let stack: Stack;
  let feed: BalanceFeed;
  beforeAll(async () => {
    stack = await Stack.start({ services: ["directory", "payments", "acquirer-emulator", "balance", "gateway"], postgres: engine === "postgres" });
    feed = await BalanceFeed.open(stack);
  }, STACK_START_MS);
  afterAll(() => stack?.stop());

  /** The buyer presses Pay in the emulator's bank app (a form post with the page's token, from its origin). */
  async function payInBankApp(qrPayload: string): Promise<void> {
    const page = `${stack.url("acquirer-emulator")}${new URL(qrPayload).pathname}`;
    const token = /name="token" value="([0-9a-f]{64})"/.exec(await (await fetch(page)).text())![1]!;
    const res = await fetch(page, {
      method: "POST",
      body: new URLSearchParams({ token, decision: "pay" }),
      headers: { Origin: new URL(stack.env.ACQUIRER_PUBLIC_URL!).origin },
      redirect: "manual",
    });
    expect(res.status).toBe(303);
  }

  const balanceByKey = async (apiKey: string) => {
    const res = await stack.api(apiKey, "/v1/balance");
    expect(res.status).toBe(200);
    return Balance.parse(await res.json());
  };

  test("a paid live payment is frozen on the account; its partial refunds take it back from its own frozen day, once each", async () => {
    const coffee = await stack.createShop({ name: "Coffee", methods: ["SBP"] });
    const tea = await stack.createShop({ name: "Tea", methods: ["SBP"], accountId: coffee.accountId });
    const accountId = coffee.accountId;

    const created = await stack.call(rpcs.payments.create, {
      shopId: tea.shopId,
      request: { orderId: `order-${Bun.randomUUIDv7()}`, amountKopecks: 150_000, method: "SBP" },
    });
    const view = await stack.call(rpcs.payments.start, { id: created.id, method: "SBP" });
    await payInBankApp(view.sbp!.qrPayload);
    const paid = await eventually(async () => {
      const p = await stack.call(rpcs.payments.get, { shopId: tea.shopId, id: created.id });
      return p.status === "SUCCESS" ? p : null;
    }, 30_000);
    const net = paid.amountKopecks - paid.commissionKopecks;
    expect(paid.commissionKopecks).toBeGreaterThan(0);

    await eventually(async () => (await feed.balanceOf(accountId)).frozenKopecks === net, 30_000);
    const frozenOnly = { availableKopecks: 0, frozenKopecks: net, holdHour: 12 };
    expect(await balanceByKey(coffee.apiKey)).toEqual(frozenOnly);
    expect(await balanceByKey(tea.apiKey)).toEqual(frozenOnly);

    // Today's receipt is still on hold: its refunds are taken from it first, so a new merchant can refund today's sales.
    const refundByKey = async (json?: unknown) => {
      const res = await stack.api(tea.apiKey, `/v1/payments/${paid.id}/refunds`, { method: "POST", json });
      expect(res.status).toBe(201);
      return Refund.parse(await res.json());
    };
    await feed.fund(accountId, 200_000, coffee.shopId);
    const part = await refundByKey({ amountKopecks: 50_000, reason: "one bag back" });
    expect(part).toMatchObject({ amountKopecks: 50_000, status: "SUCCEEDED" });
    // A third of the amount takes a third of the net receipt (the commission comes back in proportion), rounded down.
    const share = Math.floor((50_000 * net) / 150_000);
    await eventually(async () => (await feed.balanceOf(accountId)).frozenKopecks === net - share, 30_000);
    expect(await balanceByKey(coffee.apiKey)).toEqual({ availableKopecks: 200_000, frozenKopecks: net - share, holdHour: 12 });

    const rest = await refundByKey();
    expect(rest).toMatchObject({ amountKopecks: 100_000, status: "SUCCEEDED" });
    const jsm = await jetstreamManager(stack.nc);
    await eventually(async () => {
      const last = await jsm.streams.getMessage(PAYMENTS_STREAM, { last_by_subj: paymentEventSubject("REFUNDED") });
      return last?.json<{ paymentId: string }>().paymentId === paid.id;
    }, 30_000);
    // The two refunds took exactly the net receipt, all of it from the frozen day; available is untouched.
    await eventually(async () => (await feed.balanceOf(accountId)).frozenKopecks === 0, 30_000);
    const afterRefund = { availableKopecks: 200_000, frozenKopecks: 0, holdHour: 12 };
    expect(await balanceByKey(coffee.apiKey)).toEqual(afterRefund);
    expect(await balanceByKey(tea.apiKey)).toEqual(afterRefund);
    expect(await stack.call(rpcs.payments.get, { shopId: tea.shopId, id: paid.id })).toMatchObject({ status: "REFUNDED", refundedKopecks: 150_000 });
  });
});
