import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Payment, rpcs } from "@payaccept/contracts";
import { previousRelease } from "./harness/release.ts";
import { eventually, Stack, STACK_START_MS } from "./harness/stack.ts";
import { createShop, newOrderId, type TestShop } from "./payments-fixtures.ts";

/**
 * The gateway's read model in a rolling upgrade that takes the gateway first (docs/upgrades.md:
 * any order works): the stack on the last release's build (infra/previous-release.json), the
 * gateway upgraded to this checkout's, then a payments process of this checkout started beside
 * the last release's, which sends no change notices. Either process takes any call (one queue
 * group), so about half the changes below are made by the one that tells no gateway: while it
 * answers, nothing is answered from memory and every change is read right after it. Once it is
 * gone the model comes back.
 */
setDefaultTimeout(120_000);

const CHANGES = 8;
/** GATEWAY_READ_MODEL_HOLD: the probes (4 a second) reach the older process many times within it. */
const HOLD_MS = 5000;

let stack: Stack;
let shop: TestShop;

beforeAll(async () => {
  const release = await previousRelease();
  stack = await Stack.start({ services: ["directory", "payments", "gateway"], executable: release.executable, env: { GATEWAY_READ_MODEL_HOLD: `${HOLD_MS}ms` } });
  await stack.upgrade("gateway");
  const upgradedAt = Date.now();
  await stack.addReplica("payments");
  shop = await createShop(stack);
  // Past the hold after the gateway's start: from here only the older process keeps the model off.
  await Bun.sleep(Math.max(0, upgradedAt + HOLD_MS - Date.now()));
}, STACK_START_MS);
afterAll(() => stack?.stop());

const metric = async (pattern: string) => {
  const text = await (await fetch(`${stack.url("gateway")}/metrics`)).text();
  return Number(new RegExp(`^${pattern} (\\S+)$`, "m").exec(text)?.[1] ?? 0);
};
const memoryReads = () => metric('gateway_payment_reads_total\\{source="memory"\\}');
const modelOn = () => metric("gateway_read_model_on");
const get = async (id: string) => Payment.parse(await (await stack.api(shop.apiKey, `/v1/payments/${id}`)).json());
const create = async () => {
  const res = await stack.api(shop.apiKey, "/v1/payments", { method: "POST", json: { orderId: newOrderId(), amountKopecks: 100_000 } });
  expect(res.status).toBe(201);
  return Payment.parse(await res.json());
};
/** A change made past the gateway, by whichever payments process the queue group picks. */
const cancel = (id: string) => stack.call(rpcs.payments.cancel, { shopId: shop.shopId, id });

test("beside a payments process of the last release, nothing is answered from memory, and every change is read right after it", async () => {
  expect(await modelOn()).toBe(0);
  const before = await memoryReads();
  for (let i = 0; i < CHANGES; i++) {
    const p = await create();
    await get(p.id);
    expect(await get(p.id)).toEqual(p);
    const canceled = await cancel(p.id);
    expect({ i, read: await get(p.id) }).toEqual({ i, read: Payment.parse(JSON.parse(JSON.stringify(canceled))) });
  }
  expect(await memoryReads()).toBe(before);
  const log = readFileSync(join(stack.dataDir, "logs", "gateway.upgraded.log"), "utf8");
  expect(log.split("\n").some((l) => l.includes('"source":null') && l.includes("whose change notices this gateway does not hear"))).toBe(true);
});

test("once the last release's process is gone, the model comes back and follows the changes", async () => {
  await stack.service("payments").stop("SIGTERM");
  // GATEWAY_READ_MODEL_HOLD after its last answer.
  await eventually(async () => (await modelOn()) === 1, 30_000, 250);
  const p = await create();
  await get(p.id);
  const before = await memoryReads();
  expect(await get(p.id)).toEqual(p);
  expect(await memoryReads()).toBe(before + 1);
  const canceled = await cancel(p.id);
  expect(await get(p.id)).toEqual(Payment.parse(JSON.parse(JSON.stringify(canceled))));
});
