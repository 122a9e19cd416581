import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { ErrorBody } from "@payaccept/contracts";
import { eventually, Stack, type ShopCreated, STACK_START_MS } from "./harness/stack.ts";

// Each test starts real processes; bunfig's [test] timeout is not applied by this Bun.
setDefaultTimeout(60_000);

let stack: Stack;
let shop: ShopCreated;
beforeAll(async () => {
  stack = await Stack.start({ services: ["directory", "payments", "gateway"], env: { NATS_REQUEST_TIMEOUT_MS: "1000" } });
  shop = await stack.createShop();
}, STACK_START_MS);
afterAll(() => stack.stop());

/** Aborted after 10 s: a hang fails the test instead of stalling it. */
const api = (key: string, path: string, init: RequestInit & { json?: unknown } = {}) =>
  stack.api(key, path, { signal: AbortSignal.timeout(10_000), ...init });

async function expect503(res: Response) {
  expect(res.status).toBe(503);
  expect(ErrorBody.parse(await res.json()).statusCode).toBe(503);
}

test("with NATS down the gateway answers 503 instead of hanging, still refuses bad keys, and recovers", async () => {
  const create = () => api(shop.apiKey, "/v1/payments", { method: "POST", json: { orderId: `o-${Date.now()}`, amountKopecks: 10000 } });
  expect((await create()).status).toBe(201);

  await stack.nats.stop();
  await expect503(await create());
  await expect503(await api(shop.apiKey, "/v1/balance"));
  // Keys already known are judged from memory: invalid input and inactive keys need no bus.
  expect((await api(shop.apiKey, "/v1/payments?page=0")).status).toBe(400);
  // A key the directory has never seen cannot be judged without the bus: 503, not a wrong 401.
  await expect503(await api("pk_live_never-seen", "/v1/payments"));
  expect((await fetch(`${stack.url("gateway")}/healthz`)).status).toBe(200);

  await stack.startNats();
  await eventually(async () => (await create()).status === 201, 20_000, 100);
});
