import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DomainError, rpcs, type Payment } from "@payaccept/contracts";
import { ServiceProcess } from "../infra/launcher/supervisor.ts";
import { eventually, freePort, READY_WAIT_MS, Stack } from "./harness/stack.ts";
import { createShop, streamEvents, type TestShop } from "./payments-fixtures.ts";
import { repeatWhileUnknown } from "./replica-fixtures.ts";

/**
 * Two payments processes on one PostgreSQL, as on two hosts: each with a DATA_DIR of its own (no
 * file shared, none written), one SIGKILLed in the middle of a load of creates and cancels through
 * the RPC queue group. Every order becomes one payment, the shop's numbering has no gap (the list's
 * total is the count of its payments), the per-status counters agree with the payments, and every
 * CANCELED event is in the stream once.
 */
setDefaultTimeout(120_000);

const ORDERS = 60;
const WORKERS = 6;

let stack: Stack;
let shop: TestShop;
let second: ServiceProcess;
let secondLog: string;
const secondDataDir = mkdtempSync(join(tmpdir(), "payments-host-b-"));

beforeAll(async () => {
  stack = await Stack.start({ services: ["directory", "payments"], postgres: true });
  shop = await createShop(stack, { sandbox: true });
  second = new ServiceProcess("payments", { ...stack.env, DATA_DIR: secondDataDir, PAYMENTS_PORT: String(await freePort()) }, { restart: false, log: () => {}, output: (secondLog = join(stack.dataDir, "logs", "payments-host-b.log")), readyWaitMs: READY_WAIT_MS });
  second.start();
  await second.waitReady();
});
afterAll(async () => {
  await second?.stop();
  await stack?.stop();
  rmSync(secondDataDir, { recursive: true, force: true });
});

const unavailable = (e: unknown) => e instanceof DomainError && e.code === "UNAVAILABLE";

/**
 * A create whose answer was lost (its replica died) is repeated with the same orderId: either the
 * first one committed (CONFLICT: it is looked up) or it did not (the repeat creates it).
 */
async function createOnce(orderId: string): Promise<Payment> {
  return repeatWhileUnknown(async () => {
    try {
      return await stack.call(rpcs.payments.create, { shopId: shop.shopId, request: { orderId, amountKopecks: 10_000 } });
    } catch (e) {
      if (e instanceof DomainError && e.code === "CONFLICT") return stack.call(rpcs.payments.lookup, { shopId: shop.shopId, orderId });
      throw e;
    }
  }, unavailable);
}

test("creates and cancels over two payments hosts, one SIGKILLed mid-load: each payment once, no gap, each event once", async () => {
  const orders = Array.from({ length: ORDERS }, (_, i) => ({ orderId: `hosts-${i}`, cancel: i % 2 === 0, payment: undefined as Payment | undefined }));
  let next = 0;
  let finished = 0;
  let killed: Promise<unknown> | undefined;
  await Promise.all(
    Array.from({ length: WORKERS }, async () => {
      while (next < orders.length) {
        const order = orders[next++]!;
        order.payment = await createOnce(order.orderId);
        if (order.cancel) {
          await repeatWhileUnknown(() => stack.call(rpcs.payments.cancel, { shopId: shop.shopId, id: order.payment!.id }), unavailable);
        }
        if (++finished === ORDERS / 3) killed = second.kill("SIGKILL");
      }
    }),
  );
  await killed;

  // Both hosts served, and neither wrote a file: the rows are all in PostgreSQL.
  expect(stack.log("payments")).toContain('"msg":"rpc"');
  expect(readFileSync(secondLog, "utf8")).toContain('"msg":"rpc"');
  expect(existsSync(join(stack.dataDir, "payments.db")) || existsSync(join(secondDataDir, "payments.db"))).toBe(false);

  const all: Payment[] = [];
  for (let page = 1; ; page++) {
    const res = await stack.call(rpcs.payments.list, { shopId: shop.shopId, query: { page: String(page), limit: "100" } });
    expect(res.total).toBe(ORDERS);
    all.push(...res.items);
    if (res.items.length < 100) break;
  }
  expect(all.map((p) => p.orderId).sort()).toEqual(orders.map((o) => o.orderId).sort());
  expect(all.map((p) => p.id).sort()).toEqual(orders.map((o) => o.payment!.id).sort());

  const canceled = await stack.call(rpcs.payments.list, { shopId: shop.shopId, query: { page: "1", limit: "100", status: "CANCELED" } });
  const created = await stack.call(rpcs.payments.list, { shopId: shop.shopId, query: { page: "1", limit: "100", status: "CREATED" } });
  expect([canceled.total, created.total]).toEqual([ORDERS / 2, ORDERS / 2]);
  expect(canceled.items.map((p) => p.orderId).sort()).toEqual(orders.filter((o) => o.cancel).map((o) => o.orderId).sort());

  const expected = orders.filter((o) => o.cancel).map((o) => `${o.payment!.id}:CANCELED`).sort();
  await eventually(async () => (await streamEvents(stack)).length >= expected.length, 30_000);
  expect((await streamEvents(stack)).map((e) => `${e.event.paymentId}:${e.event.status}`).sort()).toEqual(expected);
});
