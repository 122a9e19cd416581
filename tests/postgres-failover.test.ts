import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { rpcs, type Payment } from "@payaccept/contracts";
import { MerchantLoad, PAYOUT, startMoneyStack, type MoneyStack } from "./money-load-fixtures.ts";
import type { Receiver } from "../services/webhook-dispatcher/test-support/receiver.ts";
import { eventually, type ShopCreated, type Stack, STACK_START_MS } from "./harness/stack.ts";
import { pairKey, receivedPairs } from "./replica-fixtures.ts";

/**
 * The primary PostgreSQL lost under load and its synchronous standby promoted
 * (docs/operations-database.md, "Failover"): every service with rows is given the URL that lists
 * both hosts with `target_session_attrs=read-write`, and follows the promoted standby without a
 * restart. Merchants create live SBP payments that buyers pay, refund them and pay out, with
 * webhooks to a real receiver; the primary is SIGKILLed (every process of it: its host lost) in
 * the middle, and the standby promoted a little later, as a failover manager would. Every answered
 * create, refund and payout is there afterwards, once; every webhook arrives; the ledger adds up;
 * the outage is measured and printed.
 */
setDefaultTimeout(120_000);

const WORKERS = 3;
/** The load before the primary is lost, the pause a failover manager takes to promote, and the load after. */
const BEFORE_KILL_MS = 3_000;
const PROMOTE_AFTER_MS = 2_000;
const AFTER_PROMOTE_MS = 5_000;
/** Bound on each worker's orders, whatever the machine's speed. */
const MAX_ORDERS_PER_WORKER = 150;
const FUNDED = 5_000_000;

let stack: Stack;
let receiver: Receiver;
let shop: ShopCreated;
let load: MerchantLoad;

let money: MoneyStack;

beforeAll(async () => {
  money = await startMoneyStack("Failover shop", FUNDED, { postgres: "replicated" });
  ({ stack, receiver, shop, load } = money);
}, STACK_START_MS);

afterAll(() => money?.stop());

test("the primary lost under load, the standby promoted: every answered create, refund and payout kept once, webhooks and the ledger go on, the outage measured", async () => {
  const started = performance.now();
  const endAt = started + BEFORE_KILL_MS + PROMOTE_AFTER_MS + AFTER_PROMOTE_MS;
  let killedAt = 0;
  let promotedAt = 0;
  const failover = (async () => {
    await Bun.sleep(BEFORE_KILL_MS);
    killedAt = performance.now();
    stack.pgPair!.primary.kill();
    await Bun.sleep(PROMOTE_AFTER_MS);
    stack.pgPair!.standby.promote();
    promotedAt = performance.now();
  })();
  await load.workers(WORKERS, "failover", () => performance.now() >= endAt, MAX_ORDERS_PER_WORKER, () => true);
  await failover;
  const { orders, attempts } = load;
  // Orders were both finished before the kill and started after the promotion.
  expect(attempts.filter((a) => a.op === "create" && a.ok && a.at < killedAt).length).toBeGreaterThan(0);
  const createdAfter = attempts.filter((a) => a.op === "create" && a.ok && a.at > promotedAt).length;
  expect(createdAfter).toBeGreaterThan(0);

  // Every create is there once, with the id its merchant was answered, and refunded once.
  for (const o of orders) {
    const found = await stack.api(shop.apiKey, `/v1/payments?orderId=${o.orderId}`);
    expect(found.status).toBe(200);
    const p = (await found.json()) as Payment;
    expect(p.id).toBe(o.payment!.id);
    const refunds = await eventually(async () => {
      const { items } = await stack.call(rpcs.payments.listRefunds, { shopId: shop.shopId, id: p.id });
      return items.every((r) => r.status === "SUCCEEDED") && items;
    }, 60_000, 250);
    expect(refunds.map((r) => r.id)).toEqual([o.refundId!]);
  }
  const page = (await (await stack.api(shop.apiKey, "/v1/payments?limit=100")).json()) as { total: number };
  expect(page.total).toBe(orders.length);
  // Every payout once: the list holds exactly the answered ones.
  const payouts = await stack.call(rpcs.balance.listPayouts, { accountId: shop.accountId, limit: 500 });
  expect(payouts.hasMore).toBe(false);
  expect(payouts.items.map((p) => p.id).sort()).toEqual(orders.map((o) => o.payoutId!).sort());

  // The outboxes go on: each payment's SUCCESS and REFUNDED webhooks arrive, and each payout's
  // PAYOUT_PENDING (no payer is configured, so they wait there), those after the promotion too.
  const keys = orders.flatMap((o) => [pairKey(o.payment!.id, "SUCCESS"), pairKey(o.payment!.id, "REFUNDED"), pairKey(o.payoutId!, "PAYOUT_PENDING")]);
  await eventually(() => keys.every((k) => receivedPairs(receiver.requests).has(k)), 60_000, 250);
  const pairs = receivedPairs(receiver.requests);
  expect([...pairs.keys()].filter((k) => !keys.includes(k))).toEqual([]);

  // The ledger: each refund took back its payment's net receipt, so what is left is the funded money less the payouts.
  const expected = FUNDED - orders.length * PAYOUT;
  const total = async () => {
    const b = await stack.call(rpcs.balance.get, { accountId: shop.accountId });
    return b.availableKopecks + b.frozenKopecks;
  };
  await eventually(async () => (await total()) === expected, 30_000, 250).catch(() => undefined);
  expect(await total()).toBe(expected);

  // Every service followed the new primary by itself.
  for (const name of ["payments", "balance", "webhook-dispatcher", "directory"] as const) {
    expect(stack.logLines(name).some((l) => l.msg === "PostgreSQL primary moved; following it")).toBe(true);
  }

  const failed = attempts.filter((a) => !a.ok);
  const firstFailure = failed[0]?.at ?? killedAt;
  const lastFailure = failed.at(-1)?.at ?? killedAt;
  const outage = {
    orders: orders.length,
    requests: attempts.length,
    failed: failed.length,
    failedByStatus: Object.fromEntries([...new Set(failed.map((a) => a.status))].map((s) => [s, failed.filter((a) => a.status === s).length])),
    promotedAfterKillMs: Math.round(promotedAt - killedAt),
    failedFromKillMs: Math.round(firstFailure - killedAt),
    lastFailureAfterPromotionMs: Math.round(lastFailure - promotedAt),
    failedSpanMs: Math.round(lastFailure - firstFailure),
    webhookDuplicates: keys.filter((k) => pairs.get(k)!.count > 1).length,
  };
  // Measured, not asserted (speed belongs to benchmarks): docs/operations-database.md quotes it.
  console.log("postgres failover:", JSON.stringify(outage));
});
