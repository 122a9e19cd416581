import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { Payment, Refund, RefundList, rpcs } from "@payaccept/contracts";
import { Stack } from "./harness/stack.ts";
import { createPayment, createShop, eventsOf, type TestShop } from "./payments-fixtures.ts";

setDefaultTimeout(60_000);

let stack: Stack;
let shop: TestShop;

beforeAll(async () => {
  stack = await Stack.start({ services: ["directory", "payments"] });
  shop = await createShop(stack, { sandbox: true });
});
afterAll(() => stack?.stop());

const admin = (...args: string[]) => stack.admin(args);

async function paidPayment(): Promise<Payment> {
  const p = await createPayment(stack, shop.shopId);
  await stack.call(rpcs.payments.start, { id: p.id, method: "SBP" });
  return (await stack.call(rpcs.payments.sandboxOutcome, { id: p.id, outcome: "SUCCESS" })).payment;
}

test("payment:refund --payment ID --amount N finds the shop itself and prints the refund as one JSON line; without --amount it refunds the rest", async () => {
  const p = await paidPayment();
  const r = await admin("payment:refund", "--payment", p.id, "--amount", "50000", "--reason", "one bag back", "--json");
  expect(r).toMatchObject({ code: 0, stderr: "" });
  expect(r.stdout.trim().split("\n")).toHaveLength(1);
  expect(Refund.parse(JSON.parse(r.stdout))).toMatchObject({ paymentId: p.id, amountKopecks: 50_000, reason: "one bag back", status: "SUCCEEDED" });
  const rest = Refund.parse(JSON.parse((await admin("payment:refund", "--payment", p.id, "--json")).stdout));
  expect(rest.amountKopecks).toBe(p.amountKopecks - 50_000);
  expect(await stack.call(rpcs.payments.get, { shopId: shop.shopId, id: p.id })).toEqual({ ...p, status: "REFUNDED", refundedKopecks: p.amountKopecks });
  // one REFUNDED event for the two refunds
  expect((await eventsOf(stack, p.id)).map((e) => e.event.status)).toEqual(["SUCCESS", "REFUNDED"]);
  const listed = RefundList.parse(JSON.parse((await admin("payment:refunds", "--payment", p.id, "--json")).stdout));
  expect(listed.items.map((x) => x.amountKopecks)).toEqual([50_000, p.amountKopecks - 50_000]);
});

test("--idempotency-key: a retry prints the first refund and refunds nothing more", async () => {
  const p = await paidPayment();
  const first = await admin("payment:refund", "--payment", p.id, "--amount", "1000", "--idempotency-key", "ticket-77", "--json");
  const again = await admin("payment:refund", "--payment", p.id, "--amount", "1000", "--idempotency-key", "ticket-77", "--json");
  expect(JSON.parse(again.stdout)).toEqual(JSON.parse(first.stdout));
  expect((await stack.call(rpcs.payments.get, { shopId: shop.shopId, id: p.id })).refundedKopecks).toBe(1000);
});

test("with --shop the payment must belong to that shop", async () => {
  const p = await paidPayment();
  const other = await createShop(stack);
  const wrong = await admin("payment:refund", "--payment", p.id, "--shop", other.shopId);
  expect(wrong).toMatchObject({ code: 1, stderr: "error: NOT_FOUND: payment not found\n" });
  const right = await admin("payment:refund", "--payment", p.id, "--shop", shop.shopId, "--json");
  expect(JSON.parse(right.stdout).status).toBe("SUCCEEDED");
});

test("errors are one line: a payment that is not SUCCESS, an unknown payment, a missing flag", async () => {
  const created = await createPayment(stack, shop.shopId);
  expect(await admin("payment:refund", "--payment", created.id)).toMatchObject({
    code: 1,
    stderr: "error: CONFLICT: only a SUCCESS payment can be refunded; it is CREATED\n",
  });
  const paid = await paidPayment();
  const zero = await admin("payment:refund", "--payment", paid.id, "--amount", "0");
  expect(zero.code).toBe(2);
  expect(zero.stderr).toStartWith("--amount must be a positive whole number\n");
  expect(await admin("payment:refund", "--payment", Bun.randomUUIDv7())).toMatchObject({ code: 1, stderr: "error: NOT_FOUND: payment not found\n" });
  const missing = await admin("payment:refund");
  expect(missing.code).toBe(2);
  expect(missing.stderr).toStartWith("--payment is required");
});

test("a malformed id or time is a usage mistake named by its flag (exit 2), not the service's \"id: must be a UUID\"", async () => {
  const shopId = shop.shopId;
  const cases: [string[], string][] = [
    [["payment:refund", "--payment", "order-1"], "--payment must be a UUID"],
    [["payment:refunds", "--payment", "12345"], "--payment must be a UUID"],
    [["receipt:list", "--payment", "nope"], "--payment must be a UUID"],
    [["receipt:resend", "--receipt", "nope"], "--receipt must be a UUID"],
    [["webhooks:replay", "--shop", shopId, "--since", "yesterday"], "--since must be an ISO 8601 time with its offset, e.g. 2026-11-24T00:00:00Z"],
  ];
  for (const [args, message] of cases) {
    const r = await admin(...args, "--json");
    expect({ args, code: r.code, out: JSON.parse(r.stdout) }).toEqual({ args, code: 2, out: { error: { code: "USAGE", message } } });
    const plain = await admin(...args);
    expect({ args, code: plain.code, first: plain.stderr.split("\n")[0] }).toEqual({ args, code: 2, first: message });
  }
});
