import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { rpcs } from "@payaccept/contracts";
import { eventually, Stack, STACK_START_MS } from "./harness/stack.ts";
import { BankApp, createPayment, createShop, eventsOf, type TestShop } from "./payments-fixtures.ts";

/**
 * Deadlines live in the store and a sweeper acts on them, so they hold across restarts. Short
 * periods here (CREATED_TTL, PENDING_TTL) stand in for the 24 hours and 20 minutes of production.
 */
setDefaultTimeout(60_000);

const TTL_MS = 1500;
/** Long enough that a restart usually lands inside the countdown. */
const PENDING_TTL_MS = 3000;
let stack: Stack;
let shop: TestShop;

beforeAll(async () => {
  stack = await Stack.start({
    services: ["directory", "payments", "acquirer-emulator"],
    env: { CREATED_TTL: `${TTL_MS}ms`, PENDING_TTL: `${PENDING_TTL_MS}ms`, TIMER_SWEEP_MS: "100" },
  });
  shop = await createShop(stack, { sandbox: true });
}, STACK_START_MS);
afterAll(() => stack?.stop());

const get = (id: string) => stack.call(rpcs.payments.get, { shopId: shop.shopId, id });
const statusOf = async (id: string) => (await get(id)).status;

/** The payment's only event, once it is in the stream. */
async function onlyEvent(id: string) {
  const evs = await eventually(async () => {
    const found = await eventsOf(stack, id);
    return found.length > 0 && found;
  });
  expect(evs).toHaveLength(1);
  return evs[0]!.event;
}

test("an unstarted payment expires after CREATED_TTL", async () => {
  const p = await createPayment(stack, shop.shopId);
  await eventually(async () => (await statusOf(p.id)) === "EXPIRED");
  const ev = await onlyEvent(p.id);
  expect(ev).toMatchObject({ status: "EXPIRED", previousStatus: "CREATED" });
  expect(Date.parse(ev.occurredAt)).toBeGreaterThanOrEqual(Date.parse(p.createdAt) + TTL_MS);
});

test("a PENDING payment expires after PENDING_TTL from its start, also across a crash", async () => {
  const p = await createPayment(stack, shop.shopId);
  const view = await stack.call(rpcs.payments.start, { id: p.id, method: "SBP" });
  const deadline = Date.parse(view.expiresAt!);
  await stack.restart("payments"); // SIGKILL in the middle of the countdown, then a new process
  const after = await stack.call(rpcs.payments.checkout, { id: p.id });
  if (after.payment.status === "PENDING") expect(after.expiresAt).toBe(view.expiresAt);
  await eventually(async () => (await statusOf(p.id)) === "EXPIRED");
  const ev = await onlyEvent(p.id);
  expect(ev).toMatchObject({ status: "EXPIRED", previousStatus: "PENDING", method: "SBP" });
  expect(Date.parse(ev.occurredAt)).toBeGreaterThanOrEqual(deadline);
});

test("a deadline that passes while payments is down is caught up at start", async () => {
  const p = await createPayment(stack, shop.shopId);
  await stack.kill("payments", "SIGKILL");
  // stay down until the deadline has passed
  await Bun.sleep(Math.max(0, Date.parse(p.createdAt) + TTL_MS + 50 - Date.now()));
  stack.service("payments").start();
  await stack.service("payments").waitReady();
  await eventually(async () => (await statusOf(p.id)) === "EXPIRED");
  expect((await onlyEvent(p.id)).previousStatus).toBe("CREATED");
});

test("a payment that ended before its deadline is left alone", async () => {
  const paid = await createPayment(stack, shop.shopId);
  await stack.call(rpcs.payments.start, { id: paid.id, method: "CARD" });
  await stack.call(rpcs.payments.sandboxOutcome, { id: paid.id, outcome: "SUCCESS" });
  // a payment created later expires later: once it has expired, the sweeper has passed the paid one's deadline
  const later = await createPayment(stack, shop.shopId);
  await eventually(async () => (await statusOf(later.id)) === "EXPIRED");
  expect(await statusOf(paid.id)).toBe("SUCCESS");
  expect((await onlyEvent(paid.id)).status).toBe("SUCCESS");
});

test("a live payment paid after it expired becomes SUCCESS (late fast-payment QR payment)", async () => {
  const live = await createShop(stack, { sandbox: false });
  const p = await createPayment(stack, live.shopId);
  const view = await stack.call(rpcs.payments.start, { id: p.id, method: "SBP" });
  await eventually(async () => (await stack.call(rpcs.payments.get, { shopId: live.shopId, id: p.id })).status === "EXPIRED");
  await new BankApp(stack).sbp(view.sbp!.qrPayload, "pay");
  const paid = await eventually(async () => {
    const now = await stack.call(rpcs.payments.get, { shopId: live.shopId, id: p.id });
    return now.status === "SUCCESS" && now;
  });
  expect(paid.paidAt).not.toBeNull();
  const evs = await eventually(async () => {
    const found = await eventsOf(stack, p.id);
    return found.length === 2 && found;
  });
  expect(evs.map((e) => [e.event.status, e.event.previousStatus])).toEqual([
    ["EXPIRED", "PENDING"],
    ["SUCCESS", "EXPIRED"],
  ]);
});
