import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { ROOT } from "../infra/launcher/services.ts";
import { eventually, Stack, type ShopCreated, STACK_START_MS } from "./harness/stack.ts";
import { Rotation } from "./replica-fixtures.ts";

setDefaultTimeout(60_000);

/**
 * RATE_LIMIT_* with several gateways (docs/gateway.md, "Replicas"): each of GATEWAY_REPLICAS
 * replicas enforces ⌈limit / N⌉, so behind an even balancer a client gets its limit, within 10 %,
 * over all of them. Two real gateways behind a round robin; no payments service, so requests that
 * pass every check are answered 503 and still count.
 */
const LIMITS = { RATE_LIMIT_PER_METHOD: "10", RATE_LIMIT_BALANCE: "4", RATE_LIMIT_PER_IP: "30" };

let stack: Stack;
let rotation: Rotation;
beforeAll(async () => {
  stack = await Stack.start({
    services: ["directory", "gateway"],
    env: { ...LIMITS, GATEWAY_REPLICAS: "2", TRUSTED_PROXIES: "127.0.0.1/32, ::1" },
  });
  const second = await stack.addReplica("gateway");
  rotation = new Rotation([stack.service("gateway").url, second.url]);
}, STACK_START_MS);
afterAll(() => stack.stop());

let nextIp = 1;
const freshIp = () => `198.51.100.${nextIp++}`;
/** n requests in a row through the balancer, from one client address. */
async function through(n: number, ip: string, apiKey: string | null, path: string): Promise<Response[]> {
  const out: Response[] = [];
  for (let i = 0; i < n; i++) {
    const headers: Record<string, string> = { "X-Forwarded-For": ip };
    if (apiKey !== null) headers["X-Api-Key"] = apiKey;
    out.push(await rotation.fetch(`http://gateways/api${path}`, { headers }));
  }
  return out;
}
const refusedCount = (responses: Response[]) => responses.filter((r) => r.status === 429).length;

describe("rate limits over two gateway replicas (GATEWAY_REPLICAS=2)", () => {
  let shop: ShopCreated;
  beforeAll(async () => {
    shop = await stack.createShop();
    // Both replicas know the key before counting starts (a 503 from each: authenticated, no payments service).
    await eventually(async () => (await through(2, freshIp(), shop.apiKey, "/v1/payments")).every((r) => r.status === 503));
  }, STACK_START_MS);

  test("per key and method: the client gets exactly its total of 10 a minute, spread over both", async () => {
    const responses = await through(14, freshIp(), shop.apiKey, `/v1/payments/${Bun.randomUUIDv7()}`);
    expect(responses.slice(0, 10).map((r) => r.status)).toEqual(Array(10).fill(503));
    expect(refusedCount(responses)).toBe(4);
    // The headers speak of the total, not of one replica's share.
    expect(responses[0]!.headers.get("RateLimit-Limit")).toBe("10");
    expect(responses[0]!.headers.get("RateLimit-Remaining")).toBe("8");
    expect(responses[13]!.headers.get("RateLimit-Remaining")).toBe("0");
  });

  test("balance: 4 a minute over both replicas", async () => {
    const responses = await through(6, freshIp(), shop.apiKey, "/v1/balance");
    expect(responses.map((r) => r.status)).toEqual([503, 503, 503, 503, 429, 429]);
  });

  test("per IP over the whole API: 30 a minute over both, bad keys included", async () => {
    const responses = await through(34, freshIp(), "pk_live_wrong", "/v1/payments");
    expect(responses.slice(0, 30).every((r) => r.status === 401)).toBe(true);
    expect(refusedCount(responses)).toBe(4);
  });
});

test("a gateway refuses to start when N replicas' shares would overshoot a limit by more than 10 %", async () => {
  const proc = Bun.spawn(["bun", join(ROOT, "services/gateway/src/main.ts")], {
    env: { ...process.env, GATEWAY_REPLICAS: "3", RATE_LIMIT_BALANCE: "5", NATS_URL: "nats://127.0.0.1:1" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
  expect(code).toBe(78);
  expect(stderr).toContain("RATE_LIMIT_BALANCE=5 over GATEWAY_REPLICAS=3");
});
