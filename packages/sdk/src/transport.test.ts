import { afterEach, describe, expect, test } from "bun:test";
import { createClient, type ClientOptions } from "./client.ts";
import { ApiError, NetworkError } from "./errors.ts";

/**
 * The client's transport against a plain HTTP server on 127.0.0.1 standing in for the API: it
 * answers each request from a script and records what arrived and when, so retries, their keys
 * and their pauses are seen exactly as they travel.
 */
type Seen = { method: string; path: string; query: string; idempotencyKey: string | null; requestId: string | null; at: number };
type Answer = (req: Request, seen: Seen) => Response | Promise<Response>;

let stop: (() => void) | undefined;
afterEach(() => stop?.());

function fakeApi(answers: Answer[] | Answer) {
  const seen: Seen[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const url = new URL(req.url);
      const entry: Seen = {
        method: req.method,
        path: url.pathname,
        query: url.search,
        idempotencyKey: req.headers.get("idempotency-key"),
        requestId: req.headers.get("x-request-id"),
        at: performance.now(),
      };
      seen.push(entry);
      const answer = typeof answers === "function" ? answers : answers.shift();
      if (!answer) return Response.json({ statusCode: 500, message: "script ran out", error: "Internal Server Error" }, { status: 500 });
      return answer(req, entry);
    },
  });
  stop = () => server.stop(true);
  const client = (extra: Partial<ClientOptions> = {}) =>
    createClient({ baseUrl: `http://127.0.0.1:${server.port}/api`, apiKey: "k", retryDelayMs: 1, recoveryDelayMs: 1, ...extra });
  return { seen, client };
}

const ok = (body: unknown, status = 200) => () => Response.json(body, { status });
const fail = (statusCode: number, headers: Record<string, string> = {}) => () =>
  Response.json({ statusCode, message: `status ${statusCode}`, error: "E" }, { status: statusCode, headers });
/** Answers only after the client has given up on this exchange. */
const hang = (req: Request) => new Promise<Response>((resolve) => req.signal.addEventListener("abort", () => resolve(new Response(null, { status: 504 }))));

const balance = { availableKopecks: 1, frozenKopecks: 2, holdHour: 3 };
const refund = { id: "r-1", paymentId: "p-1", amountKopecks: 500, reason: null, status: "SUCCEEDED" as const, failureReason: null, failureCode: null, failureParams: null, createdAt: "2026-01-01T00:00:00.000Z", completedAt: null };

describe("reads are retried", () => {
  test("after 5xx answers and a lost response, under one request id", async () => {
    const api = fakeApi([fail(502), fail(503), hang, ok(balance)]);
    expect(await api.client({ timeoutMs: 200 }).getBalance()).toEqual(balance);
    expect(api.seen).toHaveLength(4);
    expect(new Set(api.seen.map((s) => s.requestId)).size).toBe(1);
    expect(api.seen.every((s) => s.idempotencyKey === null)).toBe(true);
  });

  test("at most maxRetries times, then the last error is reported", async () => {
    const api = fakeApi(fail(503));
    const err = await api.client({ maxRetries: 2 }).getPayment("p-1").catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ statusCode: 503, outcomeUnknown: true });
    expect(api.seen).toHaveLength(3);
  });

  test("a refusal (4xx other than 429) is reported at once", async () => {
    for (const status of [400, 401, 404, 409, 422]) {
      const api = fakeApi(fail(status));
      await expect(api.client().getPayment("p-1")).rejects.toMatchObject({ statusCode: status });
      expect(api.seen).toHaveLength(1);
      stop!();
    }
  });

  test("no server at all: a NetworkError once the retries are spent", async () => {
    const api = fakeApi(ok(balance));
    stop!();
    const client = api.client({ maxRetries: 1 });
    await expect(client.getBalance()).rejects.toBeInstanceOf(NetworkError);
  });

  test("the pause doubles from retryDelayMs, never below half of it (jitter)", async () => {
    const api = fakeApi([fail(500), fail(500), fail(500), ok(balance)]);
    await api.client({ retryDelayMs: 80 }).getBalance();
    const gaps = api.seen.slice(1).map((s, i) => s.at - api.seen[i]!.at);
    // Lower bounds only: 80·2^n ceilings, of which at least half is always waited.
    expect(gaps[0]).toBeGreaterThanOrEqual(40 - 5);
    expect(gaps[1]).toBeGreaterThanOrEqual(80 - 5);
    expect(gaps[2]).toBeGreaterThanOrEqual(160 - 5);
  });
});

describe("429 and Retry-After", () => {
  test("a 429 is retried after the seconds Retry-After asks for", async () => {
    const api = fakeApi([fail(429, { "Retry-After": "1" }), ok(balance)]);
    expect(await api.client().getBalance()).toEqual(balance);
    expect(api.seen).toHaveLength(2);
    expect(api.seen[1]!.at - api.seen[0]!.at).toBeGreaterThanOrEqual(1000 - 5);
  });

  test("a refusal carries the server's code and its figures", async () => {
    const params = { refundKopecks: 6_001, refundableKopecks: 6_000, paymentKopecks: 10_000, refundingKopecks: 0 };
    const body = { statusCode: 409, message: "refund of … exceeds what is left", error: "Conflict", code: "REFUND_EXCEEDS_REFUNDABLE", params };
    const api = fakeApi([() => Response.json(body, { status: 409 })]);
    const err = await api.client().createRefund("p-1", { amountKopecks: 6_001 }).catch((e) => e);
    expect(err).toMatchObject({ statusCode: 409, code: "REFUND_EXCEEDS_REFUNDABLE", params });
  });

  test("a Retry-After longer than maxRetryDelayMs is reported, not waited out", async () => {
    const api = fakeApi([fail(429, { "Retry-After": "120" }), ok(balance)]);
    const err = await api.client({ maxRetryDelayMs: 5_000 }).getBalance().catch((e) => e);
    expect(err).toMatchObject({ statusCode: 429, retryAfter: 120 });
    expect(api.seen).toHaveLength(1);
  });

  test("createPayment waits out a 429 and a busy 409 and posts again with the same key", async () => {
    const payment = { id: "p-1", orderId: "A-1", status: "CREATED" };
    const api = fakeApi([fail(429, { "Retry-After": "0" }), fail(409, { "Retry-After": "0" }), ok(payment, 201)]);
    expect(await api.client().createPayment({ orderId: "A-1", amountKopecks: 100 })).toEqual(payment as never);
    expect(api.seen.map((s) => s.method)).toEqual(["POST", "POST", "POST"]);
    expect(api.seen[0]!.idempotencyKey).toBeTruthy();
    expect(new Set(api.seen.map((s) => s.idempotencyKey)).size).toBe(1);
  });
});

describe("writes carry an Idempotency-Key", () => {
  test("one is made per call, printable and at most 64 characters, and reused on every retry", async () => {
    const api = fakeApi([fail(500), hang, ok(refund, 201), ok(refund, 201)]);
    const client = api.client({ timeoutMs: 200 });
    await client.createRefund("p-1", { amountKopecks: 500 });
    await client.createRefund("p-1", { amountKopecks: 500 });
    const keys = api.seen.map((s) => s.idempotencyKey);
    expect(keys[0]).toMatch(/^[\x21-\x7e]{1,64}$/);
    expect(new Set(keys.slice(0, 3))).toEqual(new Set([keys[0]!]));
    expect(keys[3]).not.toBe(keys[0]);
    expect(api.seen.map((s) => `${s.method} ${s.path}`)).toEqual(Array(4).fill("POST /api/v1/payments/p-1/refunds"));
  });

  test("the caller's own key is sent as given, by every POST", async () => {
    const api = fakeApi(ok({}));
    const client = api.client();
    await client.createPayment({ orderId: "A-1", amountKopecks: 100 }, { idempotencyKey: "k-create" });
    await client.cancelPayment("p-1", { idempotencyKey: "k-cancel" });
    await client.createRefund("p-1", {}, { idempotencyKey: "k-refund" });
    await client.createPayout({ amountKopecks: 100 }, { idempotencyKey: "k-payout" });
    await client.resendWebhookDelivery("d/1", { idempotencyKey: "k-resend" });
    await client.sendTestWebhook({ idempotencyKey: "k-test" });
    expect(api.seen.map((s) => [s.path, s.idempotencyKey])).toEqual([
      ["/api/v1/payments", "k-create"],
      ["/api/v1/payments/p-1/cancel", "k-cancel"],
      ["/api/v1/payments/p-1/refunds", "k-refund"],
      ["/api/v1/payouts", "k-payout"],
      ["/api/v1/webhooks/deliveries/d%2F1/resend", "k-resend"],
      ["/api/v1/webhooks/test", "k-test"],
    ]);
  });

  test("a 409 asking to come back (the key's first request still running) is retried; a plain 409 is a refusal", async () => {
    const busy = fakeApi([fail(409, { "Retry-After": "0" }), ok(refund, 201)]);
    expect(await busy.client().createRefund("p-1")).toEqual(refund);
    expect(busy.seen.map((s) => s.idempotencyKey)).toEqual([busy.seen[0]!.idempotencyKey, busy.seen[0]!.idempotencyKey]);
    stop!();
    const refused = fakeApi([fail(409), ok(refund, 201)]);
    await expect(refused.client().createRefund("p-1")).rejects.toMatchObject({ statusCode: 409 });
    expect(refused.seen).toHaveLength(1);
  });

  test("a key held past the retry count (a crashed gateway's lease) is waited for as asked, up to maxRetryDelayMs in all", async () => {
    const busyFor = (n: number) => [...Array.from({ length: n }, () => fail(409, { "Retry-After": "1" })), ok(refund, 201)];
    const held = fakeApi(busyFor(6));
    expect(await held.client({ maxRetries: 3, maxRetryDelayMs: 10_000 }).createRefund("p-1")).toEqual(refund);
    expect(held.seen).toHaveLength(7);
    expect(held.seen.at(-1)!.at - held.seen[0]!.at).toBeGreaterThanOrEqual(6_000);
    stop!();
    const tooLong = fakeApi(busyFor(6));
    await expect(tooLong.client({ maxRetries: 3, maxRetryDelayMs: 2_500 }).createRefund("p-1")).rejects.toMatchObject({ statusCode: 409, retryAfter: 1 });
    expect(tooLong.seen).toHaveLength(3);
  });

  test("a 422 (the key was used with another body) is the caller's to fix, not retried", async () => {
    const api = fakeApi([fail(422)]);
    await expect(api.client().createPayout({ amountKopecks: 100 }, { idempotencyKey: "reused" })).rejects.toMatchObject({ statusCode: 422 });
    expect(api.seen).toHaveLength(1);
  });
});

describe("list iterators", () => {
  test("iteratePayments reads every page of the filter, 100 at a time", async () => {
    const all = Array.from({ length: 230 }, (_, i) => ({ id: `p-${i}` }));
    const api = fakeApi((req) => {
      const q = new URL(req.url).searchParams;
      const page = Number(q.get("page"));
      const size = Number(q.get("limit"));
      return Response.json({ items: all.slice((page - 1) * size, page * size), total: all.length, page, pageSize: size });
    });
    const ids: string[] = [];
    for await (const p of api.client().iteratePayments({ status: "SUCCESS" })) ids.push(p.id);
    expect(ids).toEqual(all.map((p) => p.id));
    expect(api.seen.map((s) => s.query)).toEqual([1, 2, 3].map((page) => `?status=SUCCESS&page=${page}&limit=100`));
  });

  test("iteratePayouts follows the cursor until hasMore is false", async () => {
    const all = Array.from({ length: 5 }, (_, i) => ({ id: `po-${5 - i}` }));
    const api = fakeApi((req) => {
      const q = new URL(req.url).searchParams;
      const from = q.has("startingAfter") ? all.findIndex((p) => p.id === q.get("startingAfter")) + 1 : 0;
      const limit = Number(q.get("limit"));
      return Response.json({ items: all.slice(from, from + limit), hasMore: from + limit < all.length });
    });
    const ids: string[] = [];
    for await (const p of api.client().iteratePayouts({ limit: 2 })) ids.push(p.id);
    expect(ids).toEqual(all.map((p) => p.id));
    expect(api.seen.map((s) => s.query)).toEqual(["?limit=2", "?limit=2&startingAfter=po-4", "?limit=2&startingAfter=po-2"]);
  });
});

describe("the other endpoints' paths", () => {
  test("refunds, payouts and webhook deliveries are read where the API serves them", async () => {
    const api = fakeApi(ok({ items: [], hasMore: false }));
    const client = api.client();
    await client.listRefunds("p-1");
    await client.listPayouts({ limit: 10, startingAfter: "po-9" });
    await client.listPaymentWebhooks("p-1");
    expect(api.seen.map((s) => `${s.method} ${s.path}${s.query}`)).toEqual([
      "GET /api/v1/payments/p-1/refunds",
      "GET /api/v1/payouts?limit=10&startingAfter=po-9",
      "GET /api/v1/payments/p-1/webhooks",
    ]);
  });
});
