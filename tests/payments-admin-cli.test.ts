import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { Payment, rpcs } from "@payaccept/contracts";
import { Stack } from "./harness/stack.ts";
import { createPayment, createShop, eventsOf, type TestShop } from "./payments-fixtures.ts";

setDefaultTimeout(60_000);

let stack: Stack;
let shop: TestShop;

beforeAll(async () => {
  stack = await Stack.start({ services: ["dashboard", "payments"] });
  shop = await createShop(stack, { sandbox: true });
});
afterAll(() => stack?.stop());

const admin = (...args: string[]) => stack.admin(args);

async function paidPayment(): Promise<Payment> {
  const p = await createPayment(stack, shop.shopId);
  await stack.call(rpcs.payments.start, { id: p.id, method: "SBP" });
  return (await stack.call(rpcs.payments.sandboxOutcome, { id: p.id, outcome: "SUCCESS" })).payment;
}

test("payment:refund --payment ID finds the shop itself and prints the REFUNDED payment as one JSON line", async () => {
  const p = await paidPayment();
  const r = await admin("payment:refund", "--payment", p.id, "--json");
  expect(r).toMatchObject({ code: 0, stderr: "" });
  expect(r.stdout.trim().split("\n")).toHaveLength(1);
  expect(Payment.parse(JSON.parse(r.stdout))).toEqual({ ...p, status: "REFUNDED" });
  // a repeat prints it again and sends no second event
  expect(JSON.parse((await admin("payment:refund", "--payment", p.id, "--json")).stdout)).toEqual({ ...p, status: "REFUNDED" });
  expect((await eventsOf(stack, p.id)).map((e) => e.event.status)).toEqual(["SUCCESS", "REFUNDED"]);
});

test("with --shop the payment must belong to that shop", async () => {
  const p = await paidPayment();
  const other = await createShop(stack);
  const wrong = await admin("payment:refund", "--payment", p.id, "--shop", other.shopId);
  expect(wrong).toMatchObject({ code: 1, stderr: "error: NOT_FOUND: payment not found\n" });
  const right = await admin("payment:refund", "--payment", p.id, "--shop", shop.shopId, "--json");
  expect(JSON.parse(right.stdout).status).toBe("REFUNDED");
});

test("errors are one line: a payment that is not SUCCESS, an unknown payment, a missing flag", async () => {
  const created = await createPayment(stack, shop.shopId);
  expect(await admin("payment:refund", "--payment", created.id)).toMatchObject({
    code: 1,
    stderr: "error: CONFLICT: only a SUCCESS payment can be refunded; this one is CREATED\n",
  });
  expect(await admin("payment:refund", "--payment", Bun.randomUUIDv7())).toMatchObject({ code: 1, stderr: "error: NOT_FOUND: payment not found\n" });
  const missing = await admin("payment:refund");
  expect(missing.code).toBe(2);
  expect(missing.stderr).toStartWith("--payment is required");
});
