import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { delay, http, HttpResponse, type HttpResponseResolver } from "msw";
import { setupServer } from "msw/node";
import { createClient } from "./client.ts";
import { ApiError, NetworkError } from "./errors.ts";

/**
 * From the client's point of view the API is third-party HTTP, so msw stands in for it here;
 * tests/sdk-client-*.test.ts run the same client against the real stack.
 */
const BASE = "https://pay.example.test/api";
const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

const client = (extra: Partial<Parameters<typeof createClient>[0]> = {}) =>
  createClient({ baseUrl: `${BASE}/`, apiKey: "key-1", recoveryDelayMs: 1, retryDelayMs: 1, ...extra });

const payment = (over: Record<string, unknown> = {}) => ({
  id: "0198f0c4-6c1e-7a3b-9d2e-4f5a6b7c8d9e",
  orderId: "A-1",
  status: "CREATED",
  amountKopecks: 10000,
  commissionKopecks: 70,
  description: null,
  method: null,
  telegramId: null,
  metadata: null,
  successUrl: null,
  failUrl: null,
  payUrl: "https://pay.example.test/pay/0198f0c4-6c1e-7a3b-9d2e-4f5a6b7c8d9e",
  isTest: false,
  paidAt: null,
  createdAt: "2026-01-05T10:00:00.000Z",
  ...over,
});
const error = (statusCode: number, message: string | string[], headers: Record<string, string> = {}) =>
  HttpResponse.json({ statusCode, message, ...(statusCode === 429 ? {} : { error: "Some Error" }) }, { status: statusCode, headers });

/** Answers POST /v1/payments and GET /v1/payments from scripted queues, recording every call. */
function script(posts: HttpResponseResolver[], gets: HttpResponseResolver[] = []) {
  const calls: string[] = [];
  const bodies: unknown[] = [];
  server.use(
    http.post(`${BASE}/v1/payments`, async (info) => {
      calls.push("create");
      bodies.push(await info.request.clone().json());
      const next = posts.shift();
      if (!next) throw new Error("unexpected create");
      return next(info);
    }),
    http.get(`${BASE}/v1/payments`, (info) => {
      calls.push(`lookup ${new URL(info.request.url).searchParams.get("orderId")}`);
      const next = gets.shift();
      if (!next) throw new Error("unexpected lookup");
      return next(info);
    }),
  );
  return { calls, bodies };
}

const req = { orderId: "A-1", amountKopecks: 10000, telegramId: 42 };

describe("createPayment", () => {
  test("sends the key, a request id and the JSON body, and returns the created payment", async () => {
    let seen: Request | undefined;
    server.use(
      http.post(`${BASE}/v1/payments`, ({ request }) => {
        seen = request.clone();
        return HttpResponse.json(payment(), { status: 201 });
      }),
    );
    expect(await client().createPayment(req)).toEqual(payment() as never);
    expect(seen!.headers.get("x-api-key")).toBe("key-1");
    expect(seen!.headers.get("content-type")).toBe("application/json");
    expect(seen!.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(await seen!.json()).toEqual(req);
  });

  test("after a 5xx it looks the order up and, on 404, creates it again with the same orderId", async () => {
    const { calls, bodies } = script(
      [() => error(500, "internal error"), () => HttpResponse.json(payment(), { status: 201 })],
      [() => error(404, "not found")],
    );
    expect((await client().createPayment(req)).id).toBe(payment().id);
    expect(calls).toEqual(["create", "lookup A-1", "create"]);
    expect(bodies).toEqual([req, req]);
  });

  test("after a lost response it returns the payment that was created, without creating again", async () => {
    const { calls } = script([() => HttpResponse.error()], [() => HttpResponse.json(payment())]);
    expect((await client().createPayment(req)).payUrl).toBe(payment().payUrl);
    expect(calls).toEqual(["create", "lookup A-1"]);
  });

  test("a response that does not come within timeoutMs counts as lost", async () => {
    const { calls } = script(
      [
        async () => {
          await delay("infinite");
          return HttpResponse.json(payment(), { status: 201 });
        },
      ],
      [() => HttpResponse.json(payment())],
    );
    expect((await client({ timeoutMs: 50 }).createPayment(req)).id).toBe(payment().id);
    expect(calls).toEqual(["create", "lookup A-1"]);
  });

  test("a 409 on the repeated creation means the first one landed meanwhile: it returns that payment", async () => {
    const { calls } = script(
      [() => error(503, "unavailable"), () => error(409, "orderId already used")],
      [() => error(404, "not found"), () => HttpResponse.json(payment())],
    );
    expect((await client().createPayment(req)).id).toBe(payment().id);
    expect(calls).toEqual(["create", "lookup A-1", "create", "lookup A-1"]);
  });

  test("throttling during recovery is waited out, not reported", async () => {
    const { calls } = script(
      [() => error(502, "bad gateway")],
      [() => error(429, "too many requests", { "Retry-After": "0" }), () => HttpResponse.json(payment())],
    );
    expect((await client().createPayment(req)).id).toBe(payment().id);
    expect(calls).toEqual(["create", "lookup A-1", "lookup A-1"]);
  });

  test("gives up after recoveryAttempts rounds with the last unknown outcome", async () => {
    const { calls } = script([() => error(503, "down")], [() => error(503, "down"), () => error(504, "slow")]);
    const err = await client({ recoveryAttempts: 2 }).createPayment(req).catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ statusCode: 504, outcomeUnknown: true });
    expect(calls).toEqual(["create", "lookup A-1", "lookup A-1"]);
  });

  test("a known refusal is reported at once with the server's reasons and request id", async () => {
    const { calls } = script([
      () =>
        HttpResponse.json(
          { statusCode: 400, message: ["amountKopecks: too small", "email: invalid"], error: "Bad Request" },
          { status: 400, headers: { "X-Request-Id": "req-77" } },
        ),
    ]);
    const err = await client().createPayment(req).catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({
      statusCode: 400,
      messages: ["amountKopecks: too small", "email: invalid"],
      error: "Bad Request",
      requestId: "req-77",
      retryAfter: null,
      outcomeUnknown: false,
    });
    expect(err.message).toBe("amountKopecks: too small; email: invalid");
    expect(calls).toEqual(["create"]);
  });

  test("a duplicate orderId on the first try is the merchant's 409, not recovered", async () => {
    const { calls } = script([() => error(409, "a payment with this orderId already exists")]);
    await expect(client().createPayment(req)).rejects.toMatchObject({ statusCode: 409 });
    expect(calls).toEqual(["create"]);
  });
});

describe("errors", () => {
  test("429 carries Retry-After and may lack the error name", async () => {
    server.use(http.get(`${BASE}/v1/balance`, () => error(429, "Too many requests", { "Retry-After": "17" })));
    const err = await client({ maxRetries: 0 }).getBalance().catch((e) => e);
    expect(err).toMatchObject({ statusCode: 429, retryAfter: 17, error: undefined, messages: ["Too many requests"] });
  });

  test("Retry-After as an HTTP date becomes seconds from now", async () => {
    const at = new Date(Date.now() + 120_000).toUTCString();
    server.use(http.get(`${BASE}/v1/balance`, () => error(429, "slow down", { "Retry-After": at })));
    const err = await client({ maxRetries: 0 }).getBalance().catch((e) => e);
    expect(err.retryAfter).toBeGreaterThan(100);
    expect(err.retryAfter).toBeLessThanOrEqual(120);
  });

  test("a connection failure is a NetworkError carrying the request id that was sent", async () => {
    let sent: string | null = null;
    server.use(
      http.get(`${BASE}/v1/payments/:id`, ({ request }) => {
        sent = request.headers.get("x-request-id");
        return HttpResponse.error();
      }),
    );
    const err = await client().getPayment(payment().id).catch((e) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect(err).toMatchObject({ statusCode: null, outcomeUnknown: true, requestId: sent });
  });

  test("a 2xx that is not JSON is not taken for a result", async () => {
    server.use(http.get(`${BASE}/v1/balance`, () => new HttpResponse("<html>proxy</html>", { status: 200 })));
    await expect(client().getBalance()).rejects.toBeInstanceOf(NetworkError);
  });

  test("an error body that is not the API's keeps the status and a generic message", async () => {
    server.use(http.get(`${BASE}/v1/balance`, () => new HttpResponse("Bad gateway", { status: 502 })));
    const err = await client().getBalance().catch((e) => e);
    expect(err).toMatchObject({ statusCode: 502, messages: [], message: "HTTP 502" });
  });
});

describe("reads and cancel", () => {
  test("findPaymentByOrderId returns null when the shop has no such order", async () => {
    const { calls } = script([], [() => error(404, "not found")]);
    expect(await client().findPaymentByOrderId("A/1 ?")).toBeNull();
    expect(calls).toEqual(["lookup A/1 ?"]);
  });

  test("listPayments sends the filter as the spec's query parameters", async () => {
    let query: URLSearchParams | undefined;
    server.use(
      http.get(`${BASE}/v1/payments`, ({ request }) => {
        query = new URL(request.url).searchParams;
        return HttpResponse.json({ items: [payment()], total: 1, page: 2, pageSize: 5 });
      }),
    );
    const page = await client().listPayments({
      from: new Date("2026-01-01T00:00:00Z"),
      to: "2026-01-31T23:59:59Z",
      status: ["SUCCESS", "CANCELED"],
      page: 2,
      limit: 5,
    });
    expect(page.total).toBe(1);
    expect(Object.fromEntries(query!)).toEqual({
      from: "2026-01-01T00:00:00.000Z",
      to: "2026-01-31T23:59:59Z",
      status: "SUCCESS,CANCELED",
      page: "2",
      limit: "5",
    });
  });

  test("getPayment, cancelPayment and getBalance call their endpoints", async () => {
    const seen: string[] = [];
    server.use(
      http.get(`${BASE}/v1/payments/:id`, ({ params }) => (seen.push(`get ${params.id}`), HttpResponse.json(payment()))),
      http.post(`${BASE}/v1/payments/:id/cancel`, ({ params }) => (
        seen.push(`cancel ${params.id}`), HttpResponse.json(payment({ status: "CANCELED" }))
      )),
      http.get(`${BASE}/v1/balance`, () => (seen.push("balance"), HttpResponse.json({ availableKopecks: 5, frozenKopecks: 7, holdHour: 3 }))),
    );
    const c = client();
    expect((await c.getPayment("p-1")).status).toBe("CREATED");
    expect((await c.cancelPayment("p-1")).status).toBe("CANCELED");
    expect(await c.getBalance()).toEqual({ availableKopecks: 5, frozenKopecks: 7, holdHour: 3 });
    expect(seen).toEqual(["get p-1", "cancel p-1", "balance"]);
  });
});
