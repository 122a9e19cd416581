import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { ErrorBody, rpcs } from "@payaccept/contracts";
import { eventually, Stack, type ShopCreated, STACK_START_MS } from "./harness/stack.ts";

// Each test starts real processes; bunfig's [test] timeout is not applied by this Bun.
setDefaultTimeout(60_000);

/**
 * Small limits so that a test can reach them. The test process is the gateway's "proxy"
 * (TRUSTED_PROXIES=127.0.0.1), so each test names its own client IP in X-Forwarded-For and the
 * per-IP counts of different tests do not mix. No payments service: requests that pass every
 * check are answered 503, and still count.
 */
let stack: Stack;
beforeAll(async () => {
  stack = await Stack.start({
    services: ["directory", "gateway"],
    env: { RATE_LIMIT_PER_METHOD: "3", RATE_LIMIT_BALANCE: "2", RATE_LIMIT_PER_IP: "8", TRUSTED_PROXIES: "127.0.0.1/32, ::1" },
  });
}, STACK_START_MS);
afterAll(() => stack.stop());

let nextIp = 1;
const freshIp = () => `198.51.100.${nextIp++}`;
const from = (ip: string, key: string | null, path: string, init: RequestInit = {}) =>
  stack.api(key, path, { ...init, headers: { "X-Forwarded-For": `203.0.113.250, ${ip}` } });
const statuses = (responses: Response[]) => responses.map((r) => r.status);
const seq = async (n: number, f: () => Promise<Response>) => {
  const out: Response[] = [];
  for (let i = 0; i < n; i++) out.push(await f());
  return out;
};

function expectRateHeaders(res: Response, limit: number, remaining: number) {
  expect(res.headers.get("RateLimit-Limit")).toBe(String(limit));
  expect(res.headers.get("RateLimit-Remaining")).toBe(String(remaining));
  const reset = Number(res.headers.get("RateLimit-Reset"));
  expect(reset).toBeGreaterThanOrEqual(1);
  expect(reset).toBeLessThanOrEqual(60);
}

async function expect429(res: Response) {
  expect(res.status).toBe(429);
  const body = ErrorBody.parse(await res.json());
  expect(body.statusCode).toBe(429);
  expect(String(body.message)).toContain("rate limit exceeded");
  const retryAfter = Number(res.headers.get("Retry-After"));
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(120);
}

describe("per key and API method (600/min in production)", () => {
  let shop: ShopCreated;
  beforeAll(async () => {
    shop = await stack.createShop();
  }, STACK_START_MS);

  test("the fourth call of one method is refused; headers count down; other methods and keys are separate", async () => {
    const ip = freshIp();
    const get = () => from(ip, shop.apiKey, `/v1/payments/${Bun.randomUUIDv7()}`);
    const [a, b, c, d] = await seq(4, get);
    expect(statuses([a!, b!, c!])).toEqual([503, 503, 503]);
    expectRateHeaders(a!, 3, 2);
    expectRateHeaders(c!, 3, 0);
    await expect429(d!);
    expectRateHeaders(d!, 3, 0);

    // Another route template of the same key, and the same template with a malformed id.
    expect((await from(freshIp(), shop.apiKey, "/v1/payments")).status).toBe(503);
    expect((await from(freshIp(), shop.apiKey, "/v1/payments/not-a-uuid")).status).toBe(429);
    // Another key of another shop.
    const other = await stack.createShop();
    expect((await from(freshIp(), other.apiKey, `/v1/payments/${Bun.randomUUIDv7()}`)).status).toBe(503);
  });

  test("the limit is per key, not per shop: a rotated key starts afresh", async () => {
    const own = await stack.createShop();
    const page0 = (key: string) => seq(4, () => from(freshIp(), key, "/v1/payments?page=0"));
    expect(statuses(await page0(own.apiKey))).toEqual([400, 400, 400, 429]);
    const { apiKey } = await stack.call(rpcs.directory.rotateKey, { shopId: own.shopId });
    await eventually(async () => (await from(freshIp(), apiKey, "/v1/payments?page=0")).status === 400);
    expect(statuses(await page0(apiKey))).toEqual([400, 400, 429, 429]);
  });
});

describe("balance (60/min in production)", () => {
  test("the third balance call is refused; it does not use the per-method quota", async () => {
    const shop = await stack.createShop();
    const ip = freshIp();
    const [a, b, c] = await seq(3, () => from(ip, shop.apiKey, "/v1/balance"));
    expect(statuses([a!, b!])).toEqual([503, 503]);
    expectRateHeaders(a!, 2, 1);
    await expect429(c!);
    expect((await from(freshIp(), shop.apiKey, "/v1/payments")).status).toBe(503);
  });

  test("HEAD is the same method as GET for the limit: it cannot double a key's balance quota", async () => {
    const shop = await stack.createShop();
    const ip = freshIp();
    const [a, b] = await seq(2, () => from(ip, shop.apiKey, "/v1/balance"));
    expect(statuses([a!, b!])).toEqual([503, 503]);
    const head = await from(ip, shop.apiKey, "/v1/balance", { method: "HEAD" });
    expect(head.status).toBe(429);
    expect(head.headers.get("Retry-After")).not.toBeNull();
    const other = await stack.createShop();
    const headFirst = await seq(3, () => from(freshIp(), other.apiKey, "/v1/balance", { method: "HEAD" }));
    expect(statuses(headFirst)).toEqual([503, 503, 429]);
    expect((await from(freshIp(), other.apiKey, "/v1/balance")).status).toBe(429);
  });
});

describe("per IP over the whole API (2000/min in production)", () => {
  test("counts every request from the address before authentication, bad keys and unknown routes included", async () => {
    const ip = freshIp();
    const shop = await stack.createShop();
    const mixed = [
      () => from(ip, null, "/v1/payments"),
      () => from(ip, "pk_live_wrong", "/v1/balance"),
      () => from(ip, shop.apiKey, "/v1/nowhere"),
      () => from(ip, shop.apiKey, "/v1/payments?limit=0"),
    ];
    const first = [];
    for (let i = 0; i < 8; i++) first.push(await mixed[i % mixed.length]!());
    expect(statuses(first)).toEqual([401, 401, 404, 400, 401, 401, 404, 400]);
    expectRateHeaders(first[0]!, 8, 7);
    const refused = await from(ip, "pk_live_wrong", "/v1/payments");
    await expect429(refused);
    expectRateHeaders(refused, 8, 0);
    // Another client address behind the same proxy is unaffected.
    expect((await from(freshIp(), null, "/v1/payments")).status).toBe(401);
  });

  test("X-Forwarded-For entries left of our proxy's cannot dodge the cap", async () => {
    const ip = freshIp();
    const spoofing = (i: number) => stack.api(null, "/v1/payments", { headers: { "X-Forwarded-For": `10.9.9.${i}, ${ip}` } });
    const results = [];
    for (let i = 0; i < 9; i++) results.push(await spoofing(i));
    expect(statuses(results).slice(0, 8).every((s) => s === 401)).toBe(true);
    await expect429(results[8]!);
  });

  test("health endpoints are outside the API and not limited", async () => {
    for (let i = 0; i < 12; i++) expect((await fetch(`${stack.url("gateway")}/healthz`)).status).toBe(200);
  });
});

describe("without trusted proxies", () => {
  let direct: Stack;
  beforeAll(async () => {
    direct = await Stack.start({ services: ["directory", "gateway"], env: { RATE_LIMIT_PER_IP: "3" } });
  }, STACK_START_MS);
  afterAll(() => direct.stop());

  test("X-Forwarded-For is ignored and the connection's address is counted", async () => {
    const results = [];
    for (let i = 0; i < 4; i++) {
      results.push(await direct.api(null, "/v1/payments", { headers: { "X-Forwarded-For": `198.51.100.${i}` } }));
    }
    expect(statuses(results)).toEqual([401, 401, 401, 429]);
  });
});
