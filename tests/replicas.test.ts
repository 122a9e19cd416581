import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { DomainError, rpcs, type Payment, type PaymentStatus } from "@payaccept/contracts";
import { createClient, PayacceptError, type PayacceptClient } from "@payaccept/sdk";
import type { ServiceProcess } from "../infra/launcher/supervisor.ts";
import { startReceiver, type Receiver } from "../services/webhook-dispatcher/test-support/receiver.ts";
import { eventually, Stack, type ShopCreated } from "./harness/stack.ts";
import { BankApp, streamEvents } from "./payments-fixtures.ts";
import { repeatWhileUnknown, Rotation, UNLIMITED_RATES } from "./replica-fixtures.ts";

/**
 * Two gateways, two payments, two webhook dispatchers and two balance services on one NATS, the
 * replicas of a service sharing its SQLite file. A bounded load of merchants' calls through both
 * gateways: creates, cancels (CANCELED webhooks), sandbox payments paid on the page, live SBP
 * payments paid in the acquirer's bank app (they feed the balance). First with every replica up,
 * then with one replica of each service SIGKILLed in the middle of the load. Nothing may be lost
 * or processed twice: every payment exists once, every event is in the stream once, every webhook
 * arrives, the balance is the sum of the paid payments.
 */
// Redeliveries after the SIGKILLs wait out the consumers' ack waits (up to 30 s): the per-test limit of infra/scripts/test.sh.
setDefaultTimeout(120_000);

const ORDERS_PER_PHASE = 32;
const WORKERS = 4;
/** What the load does with the i-th order of a phase. */
const PLAN = ["cancel", "cancel", "cancel", "cancel", "sandbox-paid", "live-paid", "created", "created"] as const;
type Action = (typeof PLAN)[number];

let stack: Stack;
let receiver: Receiver;
let rotation: Rotation;
let bank: BankApp;
let replica: { gateway: ServiceProcess; payments: ServiceProcess; dispatcher: ServiceProcess; balance: ServiceProcess };
let live: ShopCreated;
let sandbox: ShopCreated;
let clients: Map<string, PayacceptClient>;

type Order = { orderId: string; shopId: string; action: Action; phase: "A" | "B"; payment?: Payment };
const orders: Order[] = [];

beforeAll(async () => {
  stack = await Stack.start({
    services: ["directory", "payments", "webhook-dispatcher", "balance", "gateway", "acquirer-emulator"],
    // A dispatch message of a killed dispatcher comes back after this (default 60 s).
    env: { ...UNLIMITED_RATES, WEBHOOK_ACK_WAIT: "6s" },
  });
  const [gateway, payments, dispatcher, balance] = await Promise.all(
    (["gateway", "payments", "webhook-dispatcher", "balance"] as const).map((name) => stack.addReplica(name)),
  );
  replica = { gateway: gateway!, payments: payments!, dispatcher: dispatcher!, balance: balance! };
  // Attempts take a moment, so that a killed dispatcher has some in flight.
  receiver = startReceiver(async () => {
    await Bun.sleep(30);
    return new Response("ok");
  });
  rotation = new Rotation([stack.service("gateway").url, replica.gateway.url]);
  bank = new BankApp(stack);
  live = await stack.createShop({ name: "Live shop", methods: ["SBP"], webhookUrl: receiver.url });
  sandbox = await stack.createShop({ name: "Sandbox shop", sandbox: true, webhookUrl: receiver.url, accountId: live.accountId });
  clients = new Map(
    [live, sandbox].map((shop) => [
      shop.shopId,
      createClient({ baseUrl: "http://gateways/api", apiKey: shop.apiKey, fetch: rotation.fetch, recoveryAttempts: 6, recoveryDelayMs: 300 }),
    ]),
  );
  // Both keys are known to both gateways before the load starts.
  for (const gatewayUrl of [stack.service("gateway").url, replica.gateway.url]) {
    for (const shop of [live, sandbox]) {
      await eventually(async () => (await fetch(`${gatewayUrl}/api/v1/payments?orderId=none`, { headers: { "X-Api-Key": shop.apiKey } })).status === 404);
    }
  }
});

afterAll(async () => {
  receiver?.stop();
  await stack?.stop();
});

const unknownApiOutcome = (e: unknown) => e instanceof PayacceptError && e.outcomeUnknown;
const unavailable = (e: unknown) => e instanceof DomainError && e.code === "UNAVAILABLE";

/** One order through the merchant's API (and the buyer's side where the plan says it is paid). */
async function runOrder(order: Order): Promise<void> {
  const client = clients.get(order.shopId)!;
  const method = order.action === "live-paid" ? ("SBP" as const) : undefined;
  order.payment = await client.createPayment({ orderId: order.orderId, amountKopecks: 10_000 + orders.indexOf(order) * 100, method });
  const id = order.payment.id;
  if (order.action === "cancel") {
    await repeatWhileUnknown(() => client.cancelPayment(id), unknownApiOutcome);
  } else if (order.action === "sandbox-paid") {
    await repeatWhileUnknown(() => stack.call(rpcs.payments.start, { id, method: "SBP" }), unavailable);
    await repeatWhileUnknown(() => stack.call(rpcs.payments.sandboxOutcome, { id, outcome: "SUCCESS" }), unavailable);
  } else if (order.action === "live-paid") {
    const view = await repeatWhileUnknown(() => stack.call(rpcs.payments.start, { id, method: "SBP" }), unavailable);
    await bank.sbp(view.sbp!.qrPayload, "pay");
  }
}

/** Runs a phase's orders on WORKERS concurrent merchants; onProgress hears the count of finished orders. */
async function runPhase(phase: Order["phase"], onProgress: (finished: number) => void = () => {}): Promise<Order[]> {
  const batch = Array.from({ length: ORDERS_PER_PHASE }, (_, i): Order => {
    const action = PLAN[i % PLAN.length]!;
    const shopId = action === "sandbox-paid" || (action !== "live-paid" && i % 2 === 1) ? sandbox.shopId : live.shopId;
    return { orderId: `replicas-${phase}-${i}`, shopId, action, phase };
  });
  orders.push(...batch);
  let next = 0;
  let finished = 0;
  await Promise.all(
    Array.from({ length: WORKERS }, async () => {
      while (next < batch.length) {
        await runOrder(batch[next++]!);
        onProgress(++finished);
      }
    }),
  );
  return batch;
}

const FINAL_STATUS: Partial<Record<Action, PaymentStatus>> = { cancel: "CANCELED", "sandbox-paid": "SUCCESS", "live-paid": "SUCCESS" };
const pairKey = (id: string, status: string) => `${id}:${status}`;
const expectedPairs = (batch: Order[]) => batch.filter((o) => FINAL_STATUS[o.action]).map((o) => pairKey(o.payment!.id, FINAL_STATUS[o.action]!));

/** Webhooks received per (payment id, status), with the moment the first one arrived. */
function receivedPairs(): Map<string, { count: number; firstAt: number }> {
  const pairs = new Map<string, { count: number; firstAt: number }>();
  for (const r of receiver.requests) {
    const body = JSON.parse(r.body) as { id: string; status: string };
    const seen = pairs.get(pairKey(body.id, body.status));
    if (seen) seen.count++;
    else pairs.set(pairKey(body.id, body.status), { count: 1, firstAt: r.at });
  }
  return pairs;
}

const duplicatesOf = (keys: string[]) => {
  const pairs = receivedPairs();
  return keys.filter((k) => (pairs.get(k)?.count ?? 0) > 1);
};

/** Every expected pair arrived at least once (waits for it), and the received pairs are only expected ones. */
async function allWebhooksArrive(keys: string[], timeoutMs: number): Promise<void> {
  await eventually(() => keys.every((k) => receivedPairs().has(k)), timeoutMs, 200);
}

test("every replica up: each payment once, each event once in the stream, each webhook exactly once", async () => {
  const batch = await runPhase("A");
  const keys = expectedPairs(batch);
  await allWebhooksArrive(keys, 60_000);
  const duplicates = duplicatesOf(keys);
  console.log("replicas, all up:", JSON.stringify({ orders: batch.length, webhooks: keys.length, duplicates: duplicates.length }));
  expect(duplicates).toEqual([]);

  // Both payments replicas took part: the queue group spread the requests over them.
  const rpcLines = (log: string) => log.split("\n").filter((l) => l.includes('"msg":"rpc"')).length;
  expect(rpcLines(stack.log("payments"))).toBeGreaterThan(0);
  expect(rpcLines(stack.replicaLog(replica.payments))).toBeGreaterThan(0);
});

test("one replica of each service SIGKILLed mid-load: nothing lost, no payment or event twice; only attempts in flight in the killed dispatcher repeat", async () => {
  let killedAt = 0;
  let kills: Promise<void> | undefined;
  const batch = await runPhase("B", (finished) => {
    if (finished !== Math.floor(ORDERS_PER_PHASE / 3)) return;
    kills = (async () => {
      // The crashed gateway leaves the rotation as a balancer's health check would make it; until
      // then requests sent to it fail and the SDK's recovery looks the payment up elsewhere.
      await Promise.all([stack.kill("gateway"), replica.payments.kill("SIGKILL"), stack.kill("webhook-dispatcher"), stack.kill("balance")]);
      await rotation.remove(stack.service("gateway").url);
      killedAt = Date.now();
    })();
  });
  await kills;
  expect(killedAt).toBeGreaterThan(0);

  const all = orders;
  const keys = expectedPairs(all);
  // Events a killed consumer had pulled come back after its ack wait (intake 30 s).
  await allWebhooksArrive(keys, 90_000);

  // Every payment exists exactly once, with the id its merchant was given.
  for (const shop of [live, sandbox]) {
    const mine = all.filter((o) => o.shopId === shop.shopId);
    const page = await clients.get(shop.shopId)!.listPayments({ limit: 100 });
    expect(page.total).toBe(mine.length);
    expect(page.items.map((p) => [p.orderId, p.id]).sort()).toEqual(mine.map((o) => [o.orderId, o.payment!.id]).sort());
  }

  // Each final status is in the stream exactly once, and nothing else is.
  await eventually(async () => (await streamEvents(stack)).length >= keys.length, 30_000);
  const stored = (await streamEvents(stack)).map((e) => pairKey(e.event.paymentId, e.event.status));
  expect(stored.sort()).toEqual([...keys].sort());

  // The ledger: the live payments' receipts, each once, frozen today; the sandbox ones move no money.
  const client = clients.get(live.shopId)!;
  const livePaid = await Promise.all(all.filter((o) => o.action === "live-paid").map((o) => client.getPayment(o.payment!.id)));
  expect(livePaid.map((p) => p.status)).toEqual(livePaid.map(() => "SUCCESS"));
  const net = livePaid.reduce((sum, p) => sum + p.amountKopecks - p.commissionKopecks, 0);
  await eventually(async () => (await client.getBalance()).frozenKopecks === net, 60_000, 250);
  expect(await client.getBalance()).toEqual({ availableKopecks: 0, frozenKopecks: net, holdHour: 12 });

  // Every webhook arrived; a duplicate can only be an attempt that was in flight in the killed
  // dispatcher (made again after its ack wait), never one of the first phase or a later one.
  const pairs = receivedPairs();
  const duplicates = duplicatesOf(keys);
  console.log(
    "replicas, one of each killed:",
    JSON.stringify({ orders: batch.length, webhooks: keys.length, duplicates: duplicates.map((k) => ({ pair: k, ...pairs.get(k), killedAt })) }),
  );
  expect(keys.filter((k) => !pairs.has(k))).toEqual([]);
  expect([...pairs.keys()].filter((k) => !keys.includes(k))).toEqual([]);
  expect(duplicates.filter((k) => pairs.get(k)!.firstAt > killedAt || !expectedPairs(batch).includes(k))).toEqual([]);
});
