import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { Payment, PaymentListPage } from "@payaccept/contracts";
import type { ServiceProcess } from "../infra/launcher/supervisor.ts";
import { eventually, Stack, type ShopCreated } from "./harness/stack.ts";
import { Rotation, UNLIMITED_RATES } from "./replica-fixtures.ts";

/**
 * A rolling restart under load drops no request. Two payments replicas and two gateways; a load
 * of creates, reads and order-number lookups runs through a modelled load balancer the whole time
 * while each payments replica in turn gets SIGTERM and is started again, then each gateway (taken
 * out of rotation first, as a real rolling restart does). Every response must be the expected
 * one: no 5xx, no connection error; every created payment is there once.
 */
// Real processes restarted one after another: the same per-test limit as infra/scripts/test.sh.
setDefaultTimeout(120_000);

const WORKERS = 4;
/** Iterations per worker at most (one create, one read, every fourth a lookup): the load is bounded. */
const MAX_ITERATIONS = 2500;
/** Responses that must complete between two restarts, so that every step happens under load. */
const RESPONSES_BETWEEN_STEPS = 40;

type Outcome = { op: "create" | "get" | "lookup"; expected: number; got: number | string };

let stack: Stack;
let payments2: ServiceProcess;
let gateway2: ServiceProcess;
let shop: ShopCreated;
let rotation: Rotation;

beforeAll(async () => {
  stack = await Stack.start({ services: ["directory", "payments", "gateway"], env: UNLIMITED_RATES });
  [payments2, gateway2] = await Promise.all([stack.addReplica("payments"), stack.addReplica("gateway")]);
  rotation = new Rotation([stack.service("gateway").url, gateway2.url]);
  shop = await stack.createShop({ name: "Rolling restart", sandbox: true });
  // The new key reaches both gateways through their directory watch.
  for (const gateway of [stack.service("gateway").url, gateway2.url]) {
    await eventually(async () => (await fetch(`${gateway}/api/v1/payments?orderId=none`, { headers: { "X-Api-Key": shop.apiKey } })).status === 404);
  }
});
afterAll(() => stack?.stop());

const outcomes: Outcome[] = [];
const created = new Map<string, string>(); // orderId → id

async function request(op: Outcome["op"], expected: number, path: string, init: RequestInit = {}): Promise<Response | undefined> {
  const headers = { "X-Api-Key": shop.apiKey, "Content-Type": "application/json" };
  try {
    const res = await rotation.fetch(`http://gateways/api${path}`, { ...init, headers });
    outcomes.push({ op, expected, got: res.status });
    return res;
  } catch (e) {
    outcomes.push({ op, expected, got: `no response: ${(e as Error).message}` });
    return undefined;
  }
}

/** One merchant's integration: create, read back, now and then look up by order number. */
async function worker(n: number, done: () => boolean): Promise<void> {
  for (let i = 0; i < MAX_ITERATIONS && !done(); i++) {
    const orderId = `rolling-${n}-${i}`;
    const res = await request("create", 201, "/v1/payments", { method: "POST", body: JSON.stringify({ orderId, amountKopecks: 10_000 + i }) });
    if (res?.status !== 201) continue;
    const payment = Payment.parse(await res.json());
    created.set(orderId, payment.id);
    await request("get", 200, `/v1/payments/${payment.id}`);
    if (i % 4 === 0) await request("lookup", 200, `/v1/payments?orderId=${orderId}`);
  }
}

/** Waits until the load has completed `count` more responses (the load keeps running meanwhile). */
async function moreResponses(count: number): Promise<void> {
  const target = outcomes.length + count;
  await eventually(() => outcomes.length >= target, 30_000);
}

/** SIGTERM, wait for the process to end by itself, start it again, wait until it is ready. Returns its exit code. */
async function restart(replica: ServiceProcess): Promise<number | null> {
  await replica.stop("SIGTERM", 20_000);
  const code = replica.proc!.exitCode;
  replica.start();
  await replica.waitReady();
  return code;
}

test("SIGTERM and restart of each payments replica, then of each gateway taken out of rotation, drops no request", async () => {
  let done = false;
  const load = Promise.all(Array.from({ length: WORKERS }, (_, n) => worker(n, () => done)));
  const steps: { name: string; run: () => Promise<number | null> }[] = [
    { name: "payments 1", run: () => restart(stack.service("payments")) },
    { name: "payments 2", run: () => restart(payments2) },
    ...[stack.service("gateway"), gateway2].map((gateway, i) => ({
      name: `gateway ${i + 1}`,
      run: async () => {
        await rotation.remove(gateway.url);
        const code = await restart(gateway);
        rotation.add(gateway.url);
        return code;
      },
    })),
  ];
  const report: { step: string; exitCode: number | null; responsesDuringRestart: number }[] = [];
  try {
    await moreResponses(RESPONSES_BETWEEN_STEPS);
    for (const step of steps) {
      const before = outcomes.length;
      const exitCode = await step.run();
      report.push({ step: step.name, exitCode, responsesDuringRestart: outcomes.length - before });
      await moreResponses(RESPONSES_BETWEEN_STEPS);
    }
  } finally {
    done = true;
    await load;
  }
  console.log("rolling restart:", JSON.stringify({ responses: outcomes.length, created: created.size, steps: report }));

  // Each replica shut down by itself (exit 0, not forced by the grace period), with the load going on.
  for (const r of report) expect({ step: r.step, exitCode: r.exitCode, underLoad: r.responsesDuringRestart > 0 }).toEqual({ step: r.step, exitCode: 0, underLoad: true });
  // The load ran from before the first restart to after the last.
  expect(outcomes.length).toBeLessThan(WORKERS * MAX_ITERATIONS * 3);
  expect(outcomes.filter((o) => o.got !== o.expected)).toEqual([]);

  // Every created payment is there, once: the shop's whole list is exactly the payments the load created.
  const listed: string[] = [];
  for (let page = 1; listed.length < created.size && page <= 10_000; page++) {
    const res = await rotation.fetch(`http://gateways/api/v1/payments?page=${page}&limit=100`, { headers: { "X-Api-Key": shop.apiKey } });
    const body = PaymentListPage.parse(await res.json());
    expect(body.total).toBe(created.size);
    if (body.items.length === 0) break;
    listed.push(...body.items.map((p) => p.id));
  }
  expect(listed.sort()).toEqual([...created.values()].sort());
});
