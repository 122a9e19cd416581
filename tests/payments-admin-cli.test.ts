import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { Payment, PaymentMethodList, Refund, RefundList, rpcs, SavedPaymentMethod } from "@payaccept/contracts";
import { Stack, STACK_START_MS } from "./harness/stack.ts";
import { createPayment, createShop, eventsOf, type TestShop } from "./payments-fixtures.ts";

setDefaultTimeout(60_000);

let stack: Stack;
let shop: TestShop;

beforeAll(async () => {
  stack = await Stack.start({ services: ["directory", "payments"] });
  shop = await createShop(stack, { sandbox: true });
}, STACK_START_MS);
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

/** A sandbox payment completed from code: a hold AUTHORIZED, or a payment that saved a test card for `customerId`. */
const completed = async (request: Parameters<typeof createPayment>[2]) => {
  const p = await createPayment(stack, shop.shopId, request);
  return stack.call(rpcs.payments.sandboxComplete, { shopId: shop.shopId, id: p.id, request: { outcome: "SUCCESS" } });
};

test("payment:capture takes part of a hold (the shop found by itself); payment:cancel voids another hold", async () => {
  const hold = await completed({ capture: false, amountKopecks: 80_000 });
  expect(hold.status).toBe("AUTHORIZED");
  const r = await admin("payment:capture", "--payment", hold.id, "--amount", "50000", "--json");
  expect(r.code).toBe(0);
  expect(Payment.parse(JSON.parse(r.stdout))).toMatchObject({ status: "SUCCESS", amountKopecks: 50_000, heldKopecks: 80_000 });
  expect(await admin("payment:capture", "--payment", hold.id, "--amount", "1000")).toMatchObject({
    code: 1,
    stderr: "error: CONFLICT: the hold was already captured: 500.00 RUB (50000 kopecks)\n",
  });

  const other = await completed({ capture: false, amountKopecks: 30_000 });
  const voided = await admin("payment:cancel", "--payment", other.id, "--shop", shop.shopId, "--json");
  expect(Payment.parse(JSON.parse(voided.stdout))).toMatchObject({ status: "CANCELED", captureDeadline: null });
  expect(await admin("payment:capture", "--payment", other.id)).toMatchObject({ code: 1, stderr: "error: CONFLICT: the payment is CANCELED; only an AUTHORIZED payment can be captured\n" });
});

test("methods:list lists a shop's saved methods (one customer's, page by page); method:revoke ends one", async () => {
  const a = (await completed({ savePaymentMethod: true, customerId: "cli-customer" })).paymentMethod!.id;
  const b = (await completed({ savePaymentMethod: true, customerId: "cli-customer" })).paymentMethod!.id;
  await completed({ savePaymentMethod: true, customerId: "someone-else" });

  const page = PaymentMethodList.parse(JSON.parse((await admin("methods:list", "--shop", shop.shopId, "--customer", "cli-customer", "--limit", "1", "--json")).stdout));
  expect(page).toMatchObject({ hasMore: true, items: [{ id: b, customerId: "cli-customer", status: "ACTIVE" }] });
  const next = PaymentMethodList.parse(JSON.parse((await admin("methods:list", "--shop", shop.shopId, "--customer", "cli-customer", "--starting-after", b, "--json")).stdout));
  expect(next).toMatchObject({ hasMore: false, items: [{ id: a }] });

  const revoked = SavedPaymentMethod.parse(JSON.parse((await admin("method:revoke", "--shop", shop.shopId, "--method", a, "--json")).stdout));
  expect(revoked).toMatchObject({ id: a, status: "REVOKED", revokedBy: "MERCHANT" });
  const charge = await stack.call(rpcs.payments.create, { shopId: shop.shopId, request: { orderId: `cli-${crypto.randomUUID()}`, amountKopecks: 100, paymentMethodId: a } }).catch((e) => e);
  expect(charge).toMatchObject({ code: "CONFLICT", reason: "SAVED_METHOD_INACTIVE" });

  // An unknown shop is NOT_FOUND, not an empty list; another shop's method is not found either.
  expect((await admin("methods:list", "--shop", "no-such-shop")).code).toBe(1);
  const other = await createShop(stack, { sandbox: true });
  expect(await admin("method:revoke", "--shop", other.shopId, "--method", b)).toMatchObject({ code: 1, stderr: "error: NOT_FOUND: saved method not found\n" });
  expect((await admin("method:revoke", "--shop", shop.shopId, "--method", "card-1")).code).toBe(2);
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
