import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { rpcs } from "@payaccept/contracts";
import type { ServiceName } from "../infra/launcher/services.ts";
import type { Receiver } from "../services/webhook-dispatcher/test-support/receiver.ts";
import { enterPayoutDetails } from "./balance-fixtures.ts";
import { previousRelease, type Release } from "./harness/release.ts";
import { eventually, type ShopCreated, type Stack, STACK_START_MS } from "./harness/stack.ts";
import { MerchantLoad, PAYOUT, startMoneyStack, type MoneyStack } from "./money-load-fixtures.ts";
import { pairKey, receivedPairs } from "./replica-fixtures.ts";

/**
 * A rolling upgrade (docs/upgrades.md): the stack starts on the last release's build (the commit
 * infra/previous-release.json names, built by tests/harness/release.ts), then each service in turn
 * is stopped and this checkout's build started in its place, as a deploy does one service at a
 * time. Before the first step and after each, a payment goes through create → pay → webhook →
 * refund → payout with the old and new services talking to each other; nothing is lost, and no
 * request, event or record is refused for its shape (no BAD_REQUEST answered, no error logged).
 */
setDefaultTimeout(120_000);

/** The order a deploy takes; the rules of docs/upgrades.md make any order work, this one is tried. */
const ROLLOUT: ServiceName[] = ["directory", "payments", "balance", "webhook-dispatcher", "acquirer-emulator", "gateway"];
const FUNDED = 1_000_000;

let release: Release;
let stack: Stack;
let receiver: Receiver;
let shop: ShopCreated;
let load: MerchantLoad;

let money: MoneyStack;

beforeAll(async () => {
  release = await previousRelease();
  money = await startMoneyStack("Upgraded shop", FUNDED, { services: ROLLOUT, executable: release.executable });
  ({ stack, receiver, shop, load } = money);
}, STACK_START_MS);

afterAll(() => money?.stop());

/** Requests a process refused for their shape, by subject (its /metrics). */
async function refused(name: ServiceName): Promise<string[]> {
  const text = await (await fetch(`${stack.url(name)}/metrics`)).text();
  return text.split("\n").filter((l) => l.startsWith("nats_rpc_handled_total{") && l.includes('outcome="BAD_REQUEST"') && !l.endsWith(" 0"));
}

/** Lines at error level or above in a process's log (a refused event is one: "does not match its contract"). */
const errors = (log: string) => log.split("\n").filter((l) => l.startsWith("{") && (JSON.parse(l) as { level: number }).level >= 50);

test("each service upgraded in turn from the last release, a payment through create, pay, webhook, refund and payout at every step", async () => {
  const steps = ["all on the previous release", ...ROLLOUT.map((name) => `${name} upgraded`)];
  for (const [i, step] of steps.entries()) {
    if (i > 0) {
      const name = ROLLOUT[i - 1]!;
      expect({ step, refused: await refused(name) }).toEqual({ step, refused: [] });
      expect({ step, errors: errors(stack.log(name)) }).toEqual({ step, errors: [] });
      await stack.upgrade(name);
      // Payouts of this release go only where the account's details say: the merchant enters them
      // once the directory that keeps them is up (docs/balance.md, "Payouts").
      if (name === "directory") await enterPayoutDetails(stack, shop.accountId);
    }
    const order = await load.run(`upgrade-${i}`, { refund: true });
    const keys = [pairKey(order.payment!.id, "SUCCESS"), pairKey(order.payment!.id, "REFUNDED")];
    await eventually(() => keys.every((k) => receivedPairs(receiver.requests).has(k)), 30_000, 200).catch(() => undefined);
    expect({ step, webhooks: keys.filter((k) => receivedPairs(receiver.requests).has(k)) }).toEqual({ step, webhooks: keys });
  }

  // Nothing lost, nothing twice: every payment refunded once, every payout once, the ledger to the kopeck.
  for (const o of load.orders) {
    const { items } = await stack.call(rpcs.payments.listRefunds, { shopId: shop.shopId, id: o.payment!.id });
    expect(items.map((r) => [r.id, r.status])).toEqual([[o.refundId!, "SUCCEEDED"]]);
  }
  const { items: payouts } = await stack.call(rpcs.balance.listPayouts, { accountId: shop.accountId, limit: 500 });
  expect(payouts.map((p) => p.id).sort()).toEqual(load.orders.map((o) => o.payoutId!).sort());
  await eventually(async () => {
    const b = await stack.call(rpcs.balance.get, { accountId: shop.accountId });
    return b.availableKopecks + b.frozenKopecks === FUNDED - load.orders.length * PAYOUT;
  }, 30_000, 250);
  expect([...receivedPairs(receiver.requests)].filter(([, v]) => v.count > 1)).toEqual([]);
  for (const name of ROLLOUT) {
    expect({ name, refused: await refused(name) }).toEqual({ name, refused: [] });
    expect({ name, errors: errors(readFileSync(join(stack.dataDir, "logs", `${name}.upgraded.log`), "utf8")) }).toEqual({ name, errors: [] });
  }
  console.log("rolling upgrade:", JSON.stringify({ from: release.commit, steps: steps.length, orders: load.orders.length }));
});
