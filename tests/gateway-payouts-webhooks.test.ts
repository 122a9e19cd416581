import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { jetstreamManager } from "@nats-io/jetstream";
import {
  ErrorBody,
  Payment,
  PAYMENTS_STREAM,
  PaymentEvent,
  paymentEventSubject,
  Payout,
  PayoutList,
  Refund,
  TestWebhookResult,
  WebhookDelivery,
  WebhookDeliveryList,
} from "@payaccept/contracts";
import { startReceiver, type Receiver } from "../services/webhook-dispatcher/test-support/receiver.ts";
import { BalanceFeed, enterPayoutDetails } from "./balance-fixtures.ts";
import { eventsOf, paidSandbox, refundEventsOf } from "./payments-fixtures.ts";
import { eventually, Stack, type ShopCreated, STACK_START_MS } from "./harness/stack.ts";

// Real processes; bunfig's [test] timeout is not applied by this Bun.
setDefaultTimeout(90_000);

let stack: Stack;
let receiver: Receiver;
let feed: BalanceFeed;
let shop: ShopCreated;
let other: ShopCreated;
beforeAll(async () => {
  stack = await Stack.start({ services: ["directory", "payments", "balance", "gateway", "webhook-dispatcher"] });
  receiver = startReceiver(() => new Response("ok"));
  feed = await BalanceFeed.open(stack);
  shop = await stack.createShop({ name: "Payout shop", sandbox: true, webhookUrl: receiver.url });
  other = await stack.createShop({ name: "Other shop", sandbox: true, webhookUrl: receiver.url });
  await Promise.all([enterPayoutDetails(stack, shop.accountId), enterPayoutDetails(stack, other.accountId)]);
}, STACK_START_MS);
afterAll(async () => {
  receiver?.stop();
  await stack?.stop();
});

let n = 0;
const orderId = () => `extras-${Date.now()}-${++n}`;
const request = (key: string, method: string, path: string, opts: { json?: unknown; headers?: Record<string, string> } = {}) =>
  stack.api(key, path, { method, json: opts.json, headers: opts.headers, signal: AbortSignal.timeout(30_000) });
async function json<T>(res: Response, status: number, schema: { parse(v: unknown): T }): Promise<T> {
  const body = await res.json();
  expect({ status: res.status, body }).toMatchObject({ status });
  return schema.parse(body);
}
async function errorOf(res: Response, status: number): Promise<ErrorBody> {
  return json(res, status, ErrorBody);
}
/** Read over NATS, not the API, so that polling never meets the balance rate limit. */
const available = async (of: ShopCreated) => (await feed.balanceOf(of.accountId)).availableKopecks;
/** Every JSON line a service logged carrying this request id. */
const linesOf = (log: string, requestId: string) =>
  log
    .split("\n")
    .filter((l) => l.includes(requestId))
    .map((l) => JSON.parse(l) as { msg: string; requestId?: string; rpc?: string });

describe("payouts", () => {
  test("POST takes the amount from available; GET pages newest first; the balance class of limits applies", async () => {
    await feed.fund(shop.accountId, 100_000);
    const made: Payout[] = [];
    for (const amountKopecks of [1_000, 2_000, 3_000]) made.push(await json(await request(shop.apiKey, "POST", "/v1/payouts", { json: { amountKopecks } }), 201, Payout));
    expect(made.map((p) => [p.accountId, p.status])).toEqual(Array(3).fill([shop.accountId, "PENDING"]));
    expect(await json(await request(shop.apiKey, "GET", `/v1/payouts/${made[0]!.id}`), 200, Payout)).toEqual(made[0]!);
    expect(await available(shop)).toBe(94_000);
    const firstRes = await request(shop.apiKey, "GET", "/v1/payouts?limit=2");
    expect(firstRes.headers.get("RateLimit-Limit")).toBe("60");
    const first = await json(firstRes, 200, PayoutList);
    expect({ ids: first.items.map((p) => p.id), hasMore: first.hasMore }).toEqual({ ids: [made[2]!.id, made[1]!.id], hasMore: true });
    const next = await json(await request(shop.apiKey, "GET", `/v1/payouts?limit=2&startingAfter=${first.items[1]!.id}`), 200, PayoutList);
    expect({ ids: next.items.map((p) => p.id), hasMore: next.hasMore }).toEqual({ ids: [made[0]!.id], hasMore: false });
    // Another shop of another account sees none of them.
    expect((await json(await request(other.apiKey, "GET", "/v1/payouts"), 200, PayoutList)).items).toEqual([]);
  });

  test("refusals: more than available is a 409 naming both amounts; bad bodies and queries are 400", async () => {
    const over = await errorOf(await request(other.apiKey, "POST", "/v1/payouts", { json: { amountKopecks: 500 } }), 409);
    expect(over).toMatchObject({
      message: "payout of 5.00 RUB (500 kopecks) exceeds the available balance 0.00 RUB (0 kopecks)",
      code: "PAYOUT_EXCEEDS_AVAILABLE",
      params: { payoutKopecks: 500, availableKopecks: 0 },
    });
    await errorOf(await request(shop.apiKey, "POST", "/v1/payouts", { json: { amountKopecks: 0 } }), 400);
    await errorOf(await request(shop.apiKey, "POST", "/v1/payouts", { json: { amountKopecks: 1.5 } }), 400);
    await errorOf(await request(shop.apiKey, "GET", "/v1/payouts?limit=101"), 400);
    await errorOf(await request(shop.apiKey, "GET", "/v1/payouts?startingAfter=nope"), 400);
    await errorOf(await request(shop.apiKey, "GET", "/v1/payouts/nope"), 400);
    // Another account's payout is as absent as none.
    const [mine] = (await json(await request(shop.apiKey, "GET", "/v1/payouts?limit=1"), 200, PayoutList)).items;
    expect(await errorOf(await request(other.apiKey, "GET", `/v1/payouts/${mine!.id}`), 404)).toMatchObject({ code: "PAYOUT_NOT_FOUND" });
    // Without payout details nothing is taken.
    const bare = await stack.createShop({ name: "No details yet", sandbox: true });
    await feed.fund(bare.accountId, 1_000);
    expect(await errorOf(await request(bare.apiKey, "POST", "/v1/payouts", { json: { amountKopecks: 500 } }), 409)).toMatchObject({ code: "PAYOUT_DETAILS_MISSING" });
    expect(await available(bare)).toBe(1_000);
  });

  test("20 concurrent payouts never spend more than available", async () => {
    const before = await available(shop);
    const amount = Math.floor(before * 0.3);
    const results = await Promise.all(Array.from({ length: 20 }, () => request(shop.apiKey, "POST", "/v1/payouts", { json: { amountKopecks: amount } })));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(3);
    expect(statuses.filter((s) => s === 409)).toHaveLength(17);
    expect(await available(shop)).toBe(before - 3 * amount);
  });

  test("retries with one Idempotency-Key, at once and later, pay once; the request id reaches balance's log", async () => {
    const before = await available(shop);
    const key = `payout-${Bun.randomUUIDv7()}`;
    const requestId = `payout-req-${Bun.randomUUIDv7()}`;
    const send = () => request(shop.apiKey, "POST", "/v1/payouts", { json: { amountKopecks: 700 }, headers: { "Idempotency-Key": key, "X-Request-Id": requestId } });
    const results = await Promise.all(Array.from({ length: 10 }, send));
    const paid = results.filter((r) => r.status === 201);
    expect(results.every((r) => r.status === 201 || r.status === 409)).toBe(true);
    expect(paid.length).toBeGreaterThanOrEqual(1);
    const ids = new Set(await Promise.all(paid.map(async (r) => Payout.parse(await r.json()).id)));
    const later = await json(await send(), 201, Payout);
    expect([...ids]).toEqual([later.id]);
    expect(await available(shop)).toBe(before - 700);
    expect(linesOf(stack.log("balance"), requestId).map((l) => l.msg)).toEqual(["payout"]);
  });
});

describe("payouts when balance answers late", () => {
  test("a payout answered 503 is dropped by balance when it wakes (past its deadline); the retry with its key pays once", async () => {
    const before = await available(shop);
    const key = `late-payout-${Bun.randomUUIDv7()}`;
    const send = () => request(shop.apiKey, "POST", "/v1/payouts", { json: { amountKopecks: 900 }, headers: { "Idempotency-Key": key } });
    const balance = stack.service("balance").proc!;
    balance.kill("SIGSTOP");
    try {
      await errorOf(await send(), 503);
      await Bun.sleep(500);
    } finally {
      balance.kill("SIGCONT");
    }
    await eventually(() => stack.log("balance").includes("arrived after its caller's deadline"));
    expect(await available(shop)).toBe(before);
    const retry = await send();
    expect(retry.headers.get("Idempotent-Replayed")).toBeNull();
    const payout = await json(retry, 201, Payout);
    const { items } = await json(await request(shop.apiKey, "GET", "/v1/payouts?limit=1"), 200, PayoutList);
    expect(items[0]!.id).toBe(payout.id);
    expect(await available(shop)).toBe(before - 900);
    // And again: the same payout, replayed.
    const again = await send();
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect((await json(again, 201, Payout)).id).toBe(payout.id);
  });
});

describe("webhook deliveries", () => {
  let canceled: Payment;
  let delivery: WebhookDelivery;
  beforeAll(async () => {
    const created = await json(await request(shop.apiKey, "POST", "/v1/payments", { json: { orderId: orderId(), amountKopecks: 15000 } }), 201, Payment);
    canceled = await json(await request(shop.apiKey, "POST", `/v1/payments/${created.id}/cancel`), 200, Payment);
    delivery = await eventually(async () => {
      const { items } = await json(await request(shop.apiKey, "GET", `/v1/payments/${created.id}/webhooks`), 200, WebhookDeliveryList);
      return items.find((d) => d.result === "delivered");
    });
  }, STACK_START_MS);

  test("a payment's deliveries come with their attempts; another shop's payment is a 404", async () => {
    expect(delivery).toMatchObject({ paymentId: canceled.id, status: "CANCELED", attemptCount: 1, attempts: [{ series: 1, attempt: 1, httpStatus: 200 }] });
    await errorOf(await request(other.apiKey, "GET", `/v1/payments/${canceled.id}/webhooks`), 404);
    await errorOf(await request(shop.apiKey, "GET", "/v1/payments/not-a-uuid/webhooks"), 400);
  });

  test("resend starts a new series for the key's shop only; another shop's delivery is a 404", async () => {
    const before = receiver.requests.length;
    const resent = await json(await request(shop.apiKey, "POST", `/v1/webhooks/deliveries/${delivery.id}/resend`), 200, WebhookDelivery);
    expect(resent.id).toBe(delivery.id);
    await eventually(() => receiver.requests.slice(before).some((r) => JSON.parse(r.body).id === canceled.id));
    const after = await eventually(async () => {
      const { items } = await json(await request(shop.apiKey, "GET", `/v1/payments/${canceled.id}/webhooks`), 200, WebhookDeliveryList);
      return items[0]!.attempts.some((a) => a.series === 2 && a.httpStatus === 200) && items[0];
    });
    expect(after.id).toBe(delivery.id);
    const foreign = await errorOf(await request(other.apiKey, "POST", `/v1/webhooks/deliveries/${delivery.id}/resend`), 404);
    expect(foreign.message).toBe("delivery not found");
    await errorOf(await request(shop.apiKey, "POST", `/v1/webhooks/deliveries/${Bun.randomUUIDv7()}/resend`), 404);
  });

  test("the test webhook waits for the receiver and reports its answer", async () => {
    const before = receiver.requests.length;
    const result = await json(await request(shop.apiKey, "POST", "/v1/webhooks/test"), 200, TestWebhookResult);
    expect(result).toMatchObject({ httpStatus: 200, error: null });
    expect(JSON.parse(receiver.requests[before]!.body)).toMatchObject({ id: result.id, test: true });
  });
});

describe("one request id through every service", () => {
  test("the client's X-Request-Id is in payments' lines for the request, the outbox row and the event on the stream", async () => {
    const requestId = `support-${Bun.randomUUIDv7()}`;
    const headers = { "X-Request-Id": requestId };
    const p = await json(await request(shop.apiKey, "POST", "/v1/payments", { json: { orderId: orderId(), amountKopecks: 15000 }, headers }), 201, Payment);
    const res = await request(shop.apiKey, "POST", `/v1/payments/${p.id}/cancel`, { headers });
    expect(res.headers.get("X-Request-Id")).toBe(requestId);
    await json(res, 200, Payment);
    const lines = await eventually(() => {
      const found = linesOf(stack.log("payments"), requestId);
      return found.some((l) => l.msg === "event published") && found;
    });
    expect(lines.every((l) => l.requestId === requestId)).toBe(true);
    expect(lines.map((l) => l.rpc ?? l.msg)).toEqual(
      expect.arrayContaining(["payments.v1.create", "payment created", "payments.v1.cancel", "payment status changed", "event published"]),
    );
    const db = new Database(join(stack.dataDir, "payments.db"), { readonly: true });
    try {
      const row = db.query<{ request_id: string; payload: string }, [string]>("SELECT request_id, payload FROM outbox WHERE payment_id = ?").get(p.id)!;
      expect(row.request_id).toBe(requestId);
      expect(PaymentEvent.parse(JSON.parse(row.payload)).requestId).toBe(requestId);
    } finally {
      db.close();
    }
    const jsm = await jetstreamManager(stack.nc);
    const published = await jsm.streams.getMessage(PAYMENTS_STREAM, { last_by_subj: paymentEventSubject("CANCELED") });
    expect(PaymentEvent.parse(published!.json())).toMatchObject({ paymentId: p.id, requestId });
  });

  test("a refund's X-Request-Id is in its RefundEvent and in the REFUNDED event it completes", async () => {
    const requestId = `refund-req-${Bun.randomUUIDv7()}`;
    const paid = await paidSandbox(stack, shop.shopId, { amountKopecks: 20000 });
    await json(await request(shop.apiKey, "POST", `/v1/payments/${paid.id}/refunds`, { headers: { "X-Request-Id": requestId } }), 201, Refund);
    const [refunded] = await eventually(async () => (await refundEventsOf(stack, paid.id)).length === 1 && refundEventsOf(stack, paid.id));
    expect(refunded!.event).toMatchObject({ amountKopecks: 20000, requestId });
    const final = await eventually(async () => (await eventsOf(stack, paid.id)).find((e) => e.event.status === "REFUNDED"));
    expect(final.event.requestId).toBe(requestId);
    // The SUCCESS before it came from the buyer, not from an API request.
    expect((await eventsOf(stack, paid.id)).find((e) => e.event.status === "SUCCESS")!.event.requestId).toBeUndefined();
  });
});
