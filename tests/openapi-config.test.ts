import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { OpenAPIObject, OperationObject, ResponseObject } from "openapi3-ts/oas31";
import { Stack, STACK_START_MS } from "./harness/stack.ts";

setDefaultTimeout(60_000);

/**
 * The published document states the deployment's figures, not the defaults: a gateway started
 * with another webhook schedule and other limits describes those.
 */
let stack: Stack;
let doc: OpenAPIObject;

beforeAll(async () => {
  stack = await Stack.start({
    services: ["gateway"],
    env: { WEBHOOK_RETRY_DELAYS: "2s,5s", WEBHOOK_TIMEOUT_MS: "3000", RATE_LIMIT_PER_METHOD: "7", RATE_LIMIT_BALANCE: "3", RATE_LIMIT_PER_IP: "90" },
  });
  const res = await stack.api(null, "/openapi.json", { signal: AbortSignal.timeout(10_000) });
  expect(res.status).toBe(200);
  doc = (await res.json()) as OpenAPIObject;
}, STACK_START_MS);
afterAll(async () => {
  await stack?.stop();
});

const op = (path: string, method: string) => (doc.paths![path] as Record<string, OperationObject>)[method]!;

describe("GET /api/openapi.json with WEBHOOK_RETRY_DELAYS=2s,5s and other limits", () => {
  test("the webhook's schedule and timeout are the configured ones", () => {
    const hook = (doc.webhooks!.paymentResult as Record<string, OperationObject>).post!;
    expect(hook.description).toContain("reply 2xx within 3 seconds");
    expect((hook.responses!.default as ResponseObject).description).toBe(
      "Any other reply, a redirect or no reply within 3 s is a failed attempt; retried after 2 s and 5 s (each pause up to 10 % longer at random, never shorter; 3 attempts in all) with the same body.",
    );
    expect(JSON.stringify(doc).includes("1 min, 5 min")).toBe(false);
  });

  test("each operation states its class's limit, and 429 the per-address one", () => {
    expect(op("/v1/payments", "post").description).toEndWith(" Limit: 7 requests per minute per API key for this operation.");
    expect(op("/v1/payments/{id}/refunds", "get").description).toEndWith(" Limit: 7 requests per minute per API key for this operation.");
    expect(op("/v1/balance", "get").description).toEndWith(" Limit: 3 requests per minute per API key for this operation.");
    expect(op("/v1/payouts", "post").description).toEndWith(" Limit: 3 requests per minute per API key for this operation.");
    expect((doc.components!.responses!.TooManyRequests as ResponseObject).description).toContain("or 90 requests per minute from one client address");
    expect(JSON.stringify(doc).match(/\b(600|60|2000) requests per minute/g)).toBeNull();
  });

  test("the limit the document states is the one the gateway applies", async () => {
    const shopless = await stack.api(null, "/v1/payments", { signal: AbortSignal.timeout(10_000) });
    expect(shopless.headers.get("RateLimit-Limit")).toBe("90");
  });
});
