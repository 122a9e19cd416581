import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { rpcs } from "@payaccept/contracts";
import { eventually, Stack, type ShopCreated, STACK_START_MS } from "./harness/stack.ts";

// Each test starts real processes; bunfig's [test] timeout is not applied by this Bun.
setDefaultTimeout(60_000);

let stack: Stack;
beforeAll(async () => {
  stack = await Stack.start({ services: ["directory", "gateway"] });
}, STACK_START_MS);
afterAll(() => stack.stop());

const UNAUTHORIZED = { statusCode: 401, message: "missing or invalid API key", error: "Unauthorized", code: "API_KEY_INVALID", params: {} };
/** A body that fails validation: a 400 proves the key was accepted, without needing payments. */
const invalidCreate = { orderId: "", amountKopecks: 1 };
const createWith = (key: string | null) => stack.api(key, "/v1/payments", { method: "POST", json: invalidCreate });

async function expectUnauthorized(res: Response) {
  expect(res.status).toBe(401);
  expect(await res.json()).toEqual(UNAUTHORIZED);
}

describe("X-Api-Key", () => {
  let shop: ShopCreated;
  beforeAll(async () => {
    shop = await stack.createShop();
  }, STACK_START_MS);

  test("a valid key passes", async () => {
    expect((await createWith(shop.apiKey)).status).toBe(400);
  });

  test("missing, empty, unknown, overlong and other-kind keys get the same 401", async () => {
    await expectUnauthorized(await createWith(null));
    await expectUnauthorized(await createWith(""));
    await expectUnauthorized(await createWith("pk_live_" + "A".repeat(43)));
    await expectUnauthorized(await createWith(shop.apiKey.slice(0, -1)));
    await expectUnauthorized(await createWith(shop.apiKey + "x".repeat(1000)));
    await expectUnauthorized(await createWith(shop.signingSecret));
  });

  test("authentication comes before validation of the body, the path and the query", async () => {
    await expectUnauthorized(await stack.api("bad", "/v1/payments", { method: "POST", body: "{not json", headers: { "Content-Type": "text/plain" } }));
    await expectUnauthorized(await stack.api("bad", "/v1/payments/not-a-uuid"));
    await expectUnauthorized(await stack.api("bad", "/v1/payments/not-a-uuid/cancel", { method: "POST" }));
    await expectUnauthorized(await stack.api("bad", "/v1/payments?page=0&status=NOPE"));
    await expectUnauthorized(await stack.api(null, "/v1/balance"));
  });

  test("deactivating a shop shuts its key out within a second; activating lets it back in", async () => {
    const own = await stack.createShop();
    expect((await createWith(own.apiKey)).status).toBe(400);
    await stack.call(rpcs.directory.setActive, { shopId: own.shopId, active: false });
    await eventually(async () => (await createWith(own.apiKey)).status === 401, 1000, 20);
    await expectUnauthorized(await stack.api(own.apiKey, `/v1/payments/${Bun.randomUUIDv7()}`));
    await stack.call(rpcs.directory.setActive, { shopId: own.shopId, active: true });
    await eventually(async () => (await createWith(own.apiKey)).status === 400, 1000, 20);
  });

  test("after rotation the old key is refused within a second and the new one works", async () => {
    const own = await stack.createShop();
    const { apiKey } = await stack.call(rpcs.directory.rotateKey, { shopId: own.shopId });
    await eventually(async () => (await createWith(own.apiKey)).status === 401, 1000, 20);
    await eventually(async () => (await createWith(apiKey)).status === 400, 1000, 20);
  });

  test("the log never carries the key", async () => {
    await createWith(shop.apiKey);
    await stack.api(shop.apiKey + "typo", "/v1/balance");
    expect(stack.log("gateway")).not.toContain(shop.apiKey);
  });
});

describe("X-Request-Id", () => {
  test("every response carries one, also errors and health; the access log line has it", async () => {
    const shop = await stack.createShop();
    const responses = [
      await stack.api(null, "/v1/payments"),
      await createWith(shop.apiKey),
      await stack.api(shop.apiKey, "/no/such/route"),
      await fetch(`${stack.url("gateway")}/healthz`),
    ];
    const ids = responses.map((r) => r.headers.get("X-Request-Id"));
    for (const id of ids) expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(ids).size).toBe(ids.length);
    const line = stack
      .log("gateway")
      .split("\n")
      .find((l) => l.includes(ids[1]!) && l.includes('"msg":"request"'));
    expect(JSON.parse(line!)).toMatchObject({
      requestId: ids[1],
      shopId: shop.shopId,
      ip: "127.0.0.1",
      status: 400,
      method: "POST",
      route: "/api/v1/payments",
    });
  });

  test("a sane inbound id is kept, anything else is replaced", async () => {
    const kept = await stack.api(null, "/v1/payments", { headers: { "X-Request-Id": "client-abc.123" } });
    expect(kept.headers.get("X-Request-Id")).toBe("client-abc.123");
    const replaced = await stack.api(null, "/v1/payments", { headers: { "X-Request-Id": "bad id\twith spaces" } });
    expect(replaced.headers.get("X-Request-Id")).not.toContain("bad");
  });
});
