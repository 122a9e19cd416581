import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { ErrorBody } from "@payaccept/contracts";
import { eventually, Stack, type ShopCreated, STACK_START_MS } from "./harness/stack.ts";

// Each test starts real processes; bunfig's [test] timeout is not applied by this Bun.
setDefaultTimeout(60_000);

/**
 * The payments service is deliberately absent: a request that passes validation is answered
 * 503 ("payments service unavailable"), which tells it apart from a validation failure.
 */
let stack: Stack;
let shop: ShopCreated;
beforeAll(async () => {
  stack = await Stack.start({ services: ["directory", "gateway"] });
  shop = await stack.createShop();
}, STACK_START_MS);
afterAll(() => stack.stop());

const api = (path: string, init: RequestInit & { json?: unknown } = {}) =>
  stack.api(shop.apiKey, path, { signal: AbortSignal.timeout(10_000), ...init });
const create = (json: unknown) => api("/v1/payments", { method: "POST", json });

/** The Error shape with the status, and its messages as a list. */
async function errorOf(res: Response, status: number): Promise<string[]> {
  expect(res.status).toBe(status);
  const body = ErrorBody.parse(await res.json());
  expect(body.statusCode).toBe(status);
  return Array.isArray(body.message) ? body.message : [body.message];
}
/** What the server writes back to raw request bytes, until it closes or 5 s pass. */
async function rawHttp(request: string): Promise<string> {
  const { hostname, port } = new URL(stack.gateway);
  let out = "";
  const { promise, resolve } = Promise.withResolvers<string>();
  const socket = await Bun.connect({
    hostname,
    port: Number(port),
    socket: {
      data: (_, d) => void (out += d.toString()),
      close: () => resolve(out),
      error: () => resolve(out),
    },
  });
  socket.write(request);
  const timer = setTimeout(() => socket.end(), 5_000);
  return promise.finally(() => clearTimeout(timer));
}
const passesValidation = async (res: Response) => expect(await errorOf(res, 503)).toEqual(["payments service unavailable"]);
const fields = (messages: string[]) => [...new Set(messages.map((m) => m.split(":")[0]))].sort();

describe("POST /v1/payments body (§2.1)", () => {
  test("every problem is listed at once", async () => {
    const messages = await errorOf(
      await create({
        orderId: "x".repeat(65),
        amountKopecks: 99,
        description: "d".repeat(256),
        email: "not-an-email",
        method: "CASH",
        telegramId: "12a",
        metadata: { blob: "m".repeat(4100) },
        successUrl: "http://shop.example.com/ok",
        failUrl: "javascript:alert(1)",
      }),
      400,
    );
    expect(fields(messages)).toEqual(
      ["amountKopecks", "description", "email", "failUrl", "metadata", "method", "orderId", "successUrl", "telegramId"].sort(),
    );
  });

  test("required fields are reported together", async () => {
    expect(fields(await errorOf(await create({}), 400))).toEqual(["amountKopecks", "orderId"]);
  });

  test.each([
    ["amountKopecks above the maximum", { amountKopecks: 10_000_000_001 }, "amountKopecks"],
    ["fractional amount", { amountKopecks: 100.5 }, "amountKopecks"],
    ["amount as a string", { amountKopecks: "100" }, "amountKopecks"],
    ["empty orderId", { orderId: "" }, "orderId"],
    ["telegramId of 21 digits", { telegramId: "1".repeat(21) }, "telegramId"],
    ["negative telegramId", { telegramId: -5 }, "telegramId"],
    ["email over 255 chars", { email: `${"a".repeat(250)}@example.com` }, "email"],
    ["successUrl over 300 chars", { successUrl: `https://shop.example.com/${"p".repeat(280)}` }, "successUrl"],
    ["successUrl with a line break", { successUrl: "https://shop.example.com/ok\r\nSet-Cookie: a=b" }, "successUrl"],
    ["failUrl with a tab", { failUrl: "https://shop.example.com/\tfail" }, "failUrl"],
    ["metadata that is not an object", { metadata: [1, 2] }, "metadata"],
    ["metadata over 4 KB", { metadata: { a: "x".repeat(4090) } }, "metadata"],
    ["metadata with an integer JSON.parse rounds (it would be echoed changed)", { metadata: { crmId: 12345678901234567890 } }, "metadata.crmId"],
  ])("%s is refused", async (_name, patch, field) => {
    expect(fields(await errorOf(await create({ orderId: "o-1", amountKopecks: 100, ...patch }), 400))).toEqual([field]);
  });

  test("a telegramId integer past 2^53 (it would lose digits) is one problem, listed once", async () => {
    const messages = await errorOf(await create({ orderId: "o-1", amountKopecks: 100, telegramId: 12345678901234567890 }), 400);
    expect(messages).toEqual(["telegramId: Too big: expected int to be <=9007199254740991"]);
  });

  test("values on the edges of every limit pass validation", async () => {
    await passesValidation(await create({ orderId: "o".repeat(64), amountKopecks: 100 }));
    await passesValidation(
      await create({
        orderId: "1",
        amountKopecks: 10_000_000_000,
        description: "d".repeat(255),
        email: "buyer@example.com",
        method: "SBP",
        telegramId: "1".repeat(20),
        metadata: { a: "x".repeat(4000) },
        successUrl: "tg://resolve?domain=shop_bot",
        failUrl: "https://t.me/shop_bot",
        unknownField: "ignored",
      }),
    );
    await passesValidation(await create({ orderId: "2", amountKopecks: 500, telegramId: 123456789 }));
  });

  test("a body that is not an object is a 400", async () => {
    expect((await errorOf(await create([]), 400)).length).toBeGreaterThan(0);
    expect((await errorOf(await create(null), 400)).length).toBeGreaterThan(0);
  });

  test("malformed JSON is a 400 in the Error shape", async () => {
    const res = await api("/v1/payments", { method: "POST", body: '{"orderId": "1",', headers: { "Content-Type": "application/json" } });
    expect(await errorOf(res, 400)).toEqual(["malformed JSON"]);
  });

  test("an empty body is a 400", async () => {
    const res = await api("/v1/payments", { method: "POST", body: "", headers: { "Content-Type": "application/json" } });
    expect(await errorOf(res, 400)).toEqual(["request body is required"]);
  });

  test("a body that is not declared as JSON is a 415, with or without a content type", async () => {
    const body = JSON.stringify({ orderId: "1", amountKopecks: 100 });
    expect(await errorOf(await api("/v1/payments", { method: "POST", body, headers: { "Content-Type": "text/plain" } }), 415)).toEqual([
      "Content-Type must be application/json",
    ]);
    const bare = await fetch(`${stack.gateway}/v1/payments`, { method: "POST", body: new Blob([body]), headers: { "X-Api-Key": shop.apiKey } });
    await errorOf(bare, 415);
    await passesValidation(
      await api("/v1/payments", { method: "POST", body, headers: { "Content-Type": "application/json; charset=utf-8" } }),
    );
  });

  test("a body with a Content-Encoding is a 415 naming the encoding it accepts, compressed or not", async () => {
    const body = JSON.stringify({ orderId: "1", amountKopecks: 100 });
    for (const [encoding, bytes] of [["gzip", Bun.gzipSync(body)], ["gzip", body], ["br", body]] as const) {
      const res = await api("/v1/payments", { method: "POST", body: bytes, headers: { "Content-Type": "application/json", "Content-Encoding": encoding } });
      expect(res.headers.get("Accept-Encoding")).toBe("identity");
      expect(await errorOf(res, 415)).toEqual(["Content-Encoding is not accepted: send the body uncompressed"]);
    }
    await passesValidation(await api("/v1/payments", { method: "POST", body, headers: { "Content-Type": "application/json", "Content-Encoding": "identity" } }));
  });

  test("a client that hangs up before its Content-Length is a client's 400 in the log, not an unhandled 500", async () => {
    const requestId = `cut-body-${Date.now()}`;
    const { hostname, port } = new URL(stack.gateway);
    const socket = await Bun.connect({ hostname, port: Number(port), socket: { data: () => {} } });
    socket.write(
      `POST /api/v1/payments HTTP/1.1\r\nHost: x\r\nX-Api-Key: ${shop.apiKey}\r\nX-Request-Id: ${requestId}\r\n` +
        `Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"orderId":"cut`,
    );
    socket.end();
    const lines = () => stack.log("gateway").split("\n").filter((l) => l.includes(requestId)).map((l) => JSON.parse(l) as { msg: string; status?: number; level: number });
    await eventually(() => lines().find((l) => l.msg === "request"), 20_000);
    expect(lines().map((l) => ({ msg: l.msg, status: l.status }))).toEqual([{ msg: "request", status: 400 }]);
  });

  test("a body over 64 KB is a 413, whether announced by Content-Length or streamed", async () => {
    const big = JSON.stringify({ orderId: "1", amountKopecks: 100, description: "x".repeat(70_000) });
    expect(await errorOf(await api("/v1/payments", { method: "POST", body: big, headers: { "Content-Type": "application/json" } }), 413)).toEqual([
      "request body must be at most 65536 bytes",
    ]);
    // Announced beyond Bun's own limit (128 MiB), which would answer with a bare 413 itself.
    const huge = await rawHttp(`POST /api/v1/payments HTTP/1.1\r\nHost: x\r\nX-Api-Key: ${shop.apiKey}\r\nContent-Type: application/json\r\nContent-Length: 200000000\r\nConnection: close\r\n\r\n`);
    expect(huge.split(" ")[1]).toBe("413");
    expect(JSON.parse(huge.slice(huge.indexOf("\r\n\r\n") + 4))).toMatchObject({ statusCode: 413 });
    const chunk = new TextEncoder().encode(" ".repeat(16 * 1024));
    let sent = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        // Bounded: far more than the cap, so a reader that did not stop early would be noticed.
        if (sent++ < 4096) controller.enqueue(chunk);
        else controller.close();
      },
    });
    const streamed = await api("/v1/payments", { method: "POST", body: endless, headers: { "Content-Type": "application/json" } });
    await errorOf(streamed, 413);
    expect(sent).toBeLessThan(4096);
  });
});

describe("text that cannot be stored as it was sent", () => {
  const raw = (body: string | Uint8Array<ArrayBuffer>) => api("/v1/payments", { method: "POST", body, headers: { "Content-Type": "application/json" } });

  test("a lone UTF-16 surrogate is a 400 in every string, not turned into U+FFFD", async () => {
    for (const orderId of ["X-\ud800", "X-\udc00"]) {
      expect(await errorOf(await create({ orderId, amountKopecks: 100 }), 400)).toEqual(["orderId: must not contain a lone UTF-16 surrogate"]);
    }
    const body = '{"orderId":"o","amountKopecks":100,"description":"\\udc00","successUrl":"https://a.example/\\ud800","metadata":{"k":["\\ud800"]}}';
    expect(fields(await errorOf(await raw(body), 400))).toEqual(["description", "metadata.k.0", "successUrl"]);
  });

  test("the character U+0000 is a 400 in every string and in metadata, before any store sees it", async () => {
    const body = '{"orderId":"o\\u0000","amountKopecks":100,"description":"\\u0000","metadata":{"k":"a\\u0000","\\u0000":1}}';
    expect(await errorOf(await raw(body), 400)).toEqual([
      "orderId: must not contain the character U+0000",
      "description: must not contain the character U+0000",
      "metadata.k: must not contain the character U+0000",
      "metadata: keys must not contain the character U+0000",
    ]);
    expect((await api("/v1/payments?orderId=a%00b")).status).toBe(400);
  });

  test("a surrogate pair (an emoji) is text and passes", async () => {
    await passesValidation(await create({ orderId: "X-\ud83d\ude00", amountKopecks: 100, description: "\ud83d\ude00" }));
  });

  test("a __proto__ key in metadata is a 400 at any depth rather than silently dropped", async () => {
    const top = await raw('{"orderId":"o","amountKopecks":100,"metadata":{"__proto__":{"admin":true},"a":1}}');
    expect(await errorOf(top, 400)).toEqual(["metadata: must not contain the key __proto__"]);
    const nested = await raw('{"orderId":"o","amountKopecks":100,"metadata":{"cart":{"__proto__":1}}}');
    expect(await errorOf(nested, 400)).toEqual(["metadata.cart: must not contain the key __proto__"]);
    await passesValidation(await raw('{"orderId":"o","amountKopecks":100,"metadata":{"proto":1,"constructor":2}}'));
  });

  test("a body that is not UTF-8 is a 400", async () => {
    const bytes = new Uint8Array([...new TextEncoder().encode('{"orderId":"X-'), 0xed, 0xa0, 0x80, ...new TextEncoder().encode('","amountKopecks":100}')]);
    expect(await errorOf(await raw(bytes), 400)).toEqual(["request body must be UTF-8"]);
  });
});

describe("GET /v1/payments query (§4.2)", () => {
  test("list parameters: every problem at once, from later than to included", async () => {
    const messages = await errorOf(
      await api("/v1/payments?from=2026-03-01T00:00:00Z&to=2026-02-01T00:00:00Z&status=SUCCESS,PAID&page=0&limit=101"),
      400,
    );
    expect(fields(messages)).toEqual(["from", "limit", "page", "status"]);
    expect(messages).toContain("from: must not be later than to");
    expect(messages.find((m) => m.startsWith("status:"))).toContain("PAID");
  });

  test.each([
    ["from=yesterday", "from"],
    ["to=2026-01-01", "to"],
    ["status=", "status"],
    ["page=10001", "page"],
    ["page=1.5", "page"],
    ["limit=0", "limit"],
    ["limit=abc", "limit"],
    ["page=1&page=2", "page"],
  ])("%s is refused", async (query, field) => {
    expect(fields(await errorOf(await api(`/v1/payments?${query}`), 400))).toEqual([field]);
  });

  test("valid list parameters reach the payments service", async () => {
    await passesValidation(await api("/v1/payments"));
    await passesValidation(
      await api("/v1/payments?from=2026-01-01T00:00:00Z&to=2026-01-01T00:00:00Z&status=SUCCESS,CANCELED&page=10000&limit=100&x=1"),
    );
  });

  test("lookup mode checks only orderId and ignores every other parameter", async () => {
    await passesValidation(await api("/v1/payments?orderId=A-1&page=0&status=NOPE&from=junk"));
    expect(fields(await errorOf(await api("/v1/payments?orderId="), 400))).toEqual(["orderId"]);
    expect(fields(await errorOf(await api(`/v1/payments?orderId=${"o".repeat(65)}`), 400))).toEqual(["orderId"]);
  });
});

describe("path ids", () => {
  test("a malformed payment id is a 400, for get and for cancel", async () => {
    expect(await errorOf(await api("/v1/payments/12345"), 400)).toEqual(["id: must be a UUID"]);
    expect(await errorOf(await api("/v1/payments/not-a-uuid/cancel", { method: "POST" }), 400)).toEqual(["id: must be a UUID"]);
    await passesValidation(await api(`/v1/payments/${Bun.randomUUIDv7()}`));
    await passesValidation(await api(`/v1/payments/${Bun.randomUUIDv7()}/cancel`, { method: "POST" }));
  });
});

describe("routes", () => {
  test("unknown routes are 404 in the Error shape", async () => {
    for (const path of ["/v1/unknown", "/v2/payments", "/v1/payments/1/2/3", ""]) await errorOf(await api(path), 404);
    await errorOf(await fetch(`${stack.url("gateway")}/v1/payments`), 404);
  });

  test("known paths with another method are 405 with Allow", async () => {
    const cases: [string, string, string][] = [
      ["PUT", "/v1/payments", "GET, POST"],
      ["DELETE", `/v1/payments/${Bun.randomUUIDv7()}`, "GET"],
      ["GET", `/v1/payments/${Bun.randomUUIDv7()}/cancel`, "POST"],
      ["POST", "/v1/balance", "GET"],
    ];
    for (const [method, path, allow] of cases) {
      const res = await api(path, { method });
      expect(res.headers.get("Allow")).toBe(allow);
      await errorOf(res, 405);
    }
  });

  test("health, readiness and metrics live outside /api", async () => {
    const base = stack.url("gateway");
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect(await (await fetch(`${base}/readyz`)).json()).toMatchObject({ status: "ready" });
    expect(await (await fetch(`${base}/metrics`)).text()).toContain("http_request_duration_seconds");
  });

  test("API responses are not cacheable", async () => {
    expect((await api("/v1/payments")).headers.get("Cache-Control")).toBe("no-store");
  });
});
