import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { jetstreamManager } from "@nats-io/jetstream";
import { Balance, DomainError, PAYMENTS_STREAM, paymentEventSubject, rpcs } from "@payaccept/contracts";
import { BalanceFeed } from "./balance-fixtures.ts";
import { eventually, Stack } from "./harness/stack.ts";

/**
 * Real money through every piece: a live SBP payment paid in the acquirer emulator's bank app,
 * the payments outbox, the stream, the ledger, GET /v1/balance through the gateway with the keys of
 * two shops of one account, and a refund through payments that must fit the available balance.
 */
// Each test starts real processes; bunfig's [test] timeout is not applied by this Bun.
setDefaultTimeout(90_000);

let stack: Stack;
let feed: BalanceFeed;
beforeAll(async () => {
  stack = await Stack.start({ services: ["dashboard", "payments", "acquirer-emulator", "balance", "gateway"] });
  feed = await BalanceFeed.open(stack);
});
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

test("a paid live payment is frozen on the account; its refund needs available money and takes it once", async () => {
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

  // Today's receipt is still on hold, so it cannot pay for its own refund.
  const refused = await stack.call(rpcs.payments.refund, { shopId: tea.shopId, id: paid.id }).catch((e: unknown) => e);
  expect(refused).toBeInstanceOf(DomainError);
  expect((refused as DomainError).code).toBe("CONFLICT");
  expect((refused as DomainError).message).toContain(`refund of ${net} kopecks exceeds the available balance 0 kopecks`);
  expect(await feed.balanceOf(accountId)).toEqual(frozenOnly);

  await feed.fund(accountId, 200_000, coffee.shopId);
  expect((await stack.call(rpcs.payments.refund, { shopId: tea.shopId, id: paid.id })).status).toBe("REFUNDED");
  const jsm = await jetstreamManager(stack.nc);
  await eventually(async () => {
    const last = await jsm.streams.getMessage(PAYMENTS_STREAM, { last_by_subj: paymentEventSubject("REFUNDED") });
    return last?.json<{ paymentId: string }>().paymentId === paid.id;
  }, 30_000);
  await feed.consumed();
  // The refund left available once; the refunded receipt itself is released tomorrow as usual.
  const afterRefund = { availableKopecks: 200_000 - net, frozenKopecks: net, holdHour: 12 };
  expect(await balanceByKey(coffee.apiKey)).toEqual(afterRefund);
  expect(await balanceByKey(tea.apiKey)).toEqual(afterRefund);
});
