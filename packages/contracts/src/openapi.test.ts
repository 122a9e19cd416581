import { describe, expect, test } from "bun:test";
import { createConfig, lintFromString } from "@redocly/openapi-core";
import type { OperationObject, ParameterObject, ReferenceObject, ResponseObject } from "openapi3-ts/oas31";
import { renderOpenApiHtml } from "./openapi-html.ts";
import { buildOpenApiDocument } from "./openapi.ts";
import type { ApiFacts } from "./operations.ts";

/** The spec's figures (§6, §8) and the gateway's body limit: the defaults of the configuration. */
const facts: ApiFacts = {
  rateLimitsPerMinute: { perMethod: 600, balance: 60, perIp: 2000 },
  maxBodyBytes: 64 * 1024,
  webhookTimeoutMs: 5000,
  webhookRetryDelaysMs: [60_000, 300_000, 1_800_000, 7_200_000, 21_600_000, 86_400_000],
};
const doc = buildOpenApiDocument(facts);
type Operation = OperationObject & { responses: Record<string, ResponseObject | ReferenceObject> };
const op = (path: string, method: string) => (doc.paths![path] as Record<string, Operation>)[method]!;

describe("buildOpenApiDocument", () => {
  test("passes Redocly's strict recommended ruleset", async () => {
    const config = await createConfig({
      extends: ["recommended-strict"],
      // The project has not chosen a licence yet; naming one here would be inventing it.
      rules: { "info-license": "off" },
    });
    const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: "openapi.json", config });
    expect(problems.map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`)).toEqual([]);
  });

  // Spec §4 with the common errors of §7 (and the gateway's body limits on creation), and the
  // additions of docs/gateway.md (every POST: 409 for a twin in flight, 422 for a reused key): exactly these.
  test.each([
    ["/v1/payments", "post", ["201", "400", "401", "409", "413", "415", "422", "429", "5XX"]],
    ["/v1/payments", "get", ["200", "400", "401", "404", "429", "5XX"]],
    ["/v1/payments/{id}", "get", ["200", "400", "401", "404", "429", "5XX"]],
    ["/v1/payments/{id}/cancel", "post", ["200", "400", "401", "404", "409", "422", "429", "5XX"]],
    ["/v1/payments/{id}/webhooks", "get", ["200", "400", "401", "404", "429", "5XX"]],
    ["/v1/payments/{id}/refunds", "post", ["201", "400", "401", "404", "409", "413", "415", "422", "429", "5XX"]],
    ["/v1/payments/{id}/refunds", "get", ["200", "400", "401", "404", "429", "5XX"]],
    ["/v1/balance", "get", ["200", "401", "429", "5XX"]],
    ["/v1/payouts", "post", ["201", "400", "401", "409", "413", "415", "422", "429", "5XX"]],
    ["/v1/payouts", "get", ["200", "400", "401", "429", "5XX"]],
    ["/v1/payouts/{id}", "get", ["200", "400", "401", "404", "429", "5XX"]],
    ["/v1/payout-schedule", "get", ["200", "401", "429", "5XX"]],
    ["/v1/webhooks/deliveries/{deliveryId}/resend", "post", ["200", "400", "401", "404", "409", "422", "429", "5XX"]],
    ["/v1/webhooks/test", "post", ["200", "400", "401", "409", "422", "429", "5XX"]],
    ["/v1/payments/{id}/capture", "post", ["200", "400", "401", "404", "409", "413", "415", "422", "429", "5XX"]],
    ["/v1/payment-methods", "get", ["200", "400", "401", "429", "5XX"]],
    ["/v1/payment-methods/{id}", "get", ["200", "400", "401", "404", "429", "5XX"]],
    ["/v1/payment-methods/{id}/revoke", "post", ["200", "400", "401", "404", "409", "422", "429", "5XX"]],
    ["/v1/sandbox/payments/{id}/outcome", "post", ["200", "400", "401", "404", "409", "413", "415", "422", "429", "5XX"]],
  ])("%s %s answers %p", (path, method, codes) => {
    expect(Object.keys(op(path, method).responses).sort()).toEqual(codes);
  });

  test("no other operations are described", () => {
    expect(Object.keys(doc.paths!).sort()).toEqual([
      "/v1/balance",
      "/v1/payment-methods",
      "/v1/payment-methods/{id}",
      "/v1/payment-methods/{id}/revoke",
      "/v1/payments",
      "/v1/payments/{id}",
      "/v1/payments/{id}/cancel",
      "/v1/payments/{id}/capture",
      "/v1/payments/{id}/receipts",
      "/v1/payments/{id}/refunds",
      "/v1/payments/{id}/webhooks",
      "/v1/payout-schedule",
      "/v1/payouts",
      "/v1/payouts/{id}",
      "/v1/sandbox/payments/{id}/outcome",
      "/v1/webhooks/deliveries/{deliveryId}/resend",
      "/v1/webhooks/test",
    ]);
  });

  test("every POST takes an optional Idempotency-Key and its success may carry Idempotent-Replayed; no GET does", () => {
    const keyRef = { $ref: "#/components/parameters/IdempotencyKey" };
    expect(doc.components!.parameters!.IdempotencyKey).toMatchObject({ name: "Idempotency-Key", in: "header", required: false, schema: { type: "string", pattern: "^[\\x20-\\x7e]{1,64}$" } });
    for (const [path, item] of Object.entries(doc.paths!)) {
      for (const [method, o] of Object.entries(item as Record<string, Operation>)) {
        const success = Object.entries(o.responses).find(([code]) => code.startsWith("2"))![1] as ResponseObject;
        const expected = method === "post";
        expect({ path, method, key: (o.parameters ?? []).some((p) => "$ref" in p && p.$ref === keyRef.$ref) }).toEqual({ path, method, key: expected });
        expect({ path, method, replayed: "Idempotent-Replayed" in (success.headers ?? {}) }).toEqual({ path, method, replayed: expected });
      }
    }
  });

  test("the Idempotency-Key says what a twin of a request still running gets: a buyer's create waits and replays, any other request is 409", () => {
    const keyOf = (path: string, method: string) => (op(path, method).parameters ?? []).find((p) => "$ref" in p) as ReferenceObject;
    const shared = (doc.components!.parameters!.IdempotencyKey as ParameterObject).description!;
    expect(shared).toContain("; while the first is still running, 409. A 5xx is not stored");
    const create = keyOf("/v1/payments", "post");
    expect(create.$ref).toBe("#/components/parameters/IdempotencyKey");
    expect(create.description).toBe(
      shared.replace(
        "while the first is still running, 409.",
        "while the first is still running, a create without `paymentMethodId` waits for its answer and gets it as a replay; any other request is 409.",
      ),
    );
    for (const [path, method] of [["/v1/payments/{id}/cancel", "post"], ["/v1/payments/{id}/refunds", "post"], ["/v1/payouts", "post"]] as const) {
      expect(keyOf(path, method)).toEqual({ $ref: "#/components/parameters/IdempotencyKey" });
    }
  });

  test("a refund's body may be left out: everything left is refunded", () => {
    expect(op("/v1/payments/{id}/refunds", "post").requestBody).toEqual({
      required: false,
      content: { "application/json": { schema: { $ref: "#/components/schemas/CreateRefundRequest" } } },
    });
  });

  test("every operation needs X-Api-Key", () => {
    expect(doc.security).toEqual([{ ApiKey: [] }]);
    expect(doc.components!.securitySchemes!.ApiKey).toMatchObject({ type: "apiKey", in: "header", name: "X-Api-Key" });
  });

  test("creation takes a CreatePaymentRequest body and answers a Payment", () => {
    const create = op("/v1/payments", "post");
    expect(create.requestBody).toEqual({
      required: true,
      content: { "application/json": { schema: { $ref: "#/components/schemas/CreatePaymentRequest" } } },
    });
    expect((create.responses["201"] as ResponseObject).content!["application/json"]!.schema).toEqual({
      $ref: "#/components/schemas/Payment",
    });
  });

  test("the list takes the spec's query parameters with their bounds and defaults", () => {
    const params = Object.fromEntries((op("/v1/payments", "get").parameters as ParameterObject[]).map((p) => [p.name, p]));
    expect(Object.keys(params).sort()).toEqual(["from", "limit", "orderId", "page", "status", "to"]);
    expect(params.page!.schema).toMatchObject({ type: "integer", minimum: 1, maximum: 10000, default: 1 });
    expect(params.limit!.schema).toMatchObject({ type: "integer", minimum: 1, maximum: 100, default: 20 });
    expect(params.orderId!.schema).toMatchObject({ type: "string", minLength: 1, maxLength: 64 });
    expect(params.from!.schema).toMatchObject({ type: "string", format: "date-time" });
    expect(Object.values(params).every((p) => p.in === "query" && p.required === false)).toBe(true);
  });

  test("payment ids in the path are required UUIDs", () => {
    for (const path of ["/v1/payments/{id}", "/v1/payments/{id}/cancel", "/v1/payments/{id}/webhooks"]) {
      const [method] = Object.keys(doc.paths![path]!);
      expect(op(path, method!).parameters!.filter((p) => !("$ref" in p))).toEqual([
        expect.objectContaining({ name: "id", in: "path", required: true, schema: expect.objectContaining({ format: "uuid" }) }),
      ]);
    }
  });

  test("responses carry X-Request-Id and RateLimit-*; 429 also Retry-After; errors use the Error shape", () => {
    const tooMany = doc.components!.responses!.TooManyRequests as ResponseObject;
    expect(Object.keys(tooMany.headers!).sort()).toEqual(["RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "Retry-After", "X-Request-Id"]);
    for (const r of Object.values(doc.components!.responses!) as ResponseObject[]) {
      expect(r.content!["application/json"]!.schema).toEqual({ $ref: "#/components/schemas/Error" });
      expect(r.headers).toHaveProperty("X-Request-Id");
    }
    expect(Object.keys((op("/v1/balance", "get").responses["200"] as ResponseObject).headers ?? {})).toContain("RateLimit-Remaining");
  });

  test("the headers the gateway adds to a refusal are described: Retry-After on 409 (key in progress), Accept-Encoding on 415", () => {
    const responses = doc.components!.responses! as Record<string, ResponseObject>;
    expect(responses.Conflict!.headers).toHaveProperty("Retry-After");
    expect(responses.UnsupportedMediaType!.headers).toHaveProperty("Accept-Encoding");
  });

  test("the webhook has the WebhookBody, both signature schemes and the signature set", () => {
    const hook = (doc.webhooks!.paymentResult as Record<string, OperationObject>).post!;
    expect((hook.requestBody as { content: Record<string, { schema: ReferenceObject }> }).content["application/json"]!.schema).toEqual({
      $ref: "#/components/schemas/WebhookBody",
    });
    const headers = Object.fromEntries((hook.parameters as ParameterObject[]).map((p) => [p.name, p]));
    expect(Object.keys(headers).sort()).toEqual(["Payaccept-Signature", "X-Signature", "X-Signature-V2", "X-Timestamp"]);
    expect(headers["Payaccept-Signature"]!.schema).toMatchObject({ pattern: "^t=\\d+(,v1=[0-9a-f]{64})+$" });
    expect(headers["X-Signature-V2"]!.schema).toMatchObject({ pattern: "^[0-9a-f]{64}$" });
    expect(headers["X-Timestamp"]!.schema).toMatchObject({ pattern: "^\\d+$" });
  });

  test("the configuration's figures are stated: limits, body size, key lifetime, the webhook's timeout and schedule", () => {
    expect(op("/v1/payments", "post").description).toEndWith(" Limit: 600 requests per minute per API key for this operation.");
    expect(op("/v1/payouts", "get").description).toEndWith(" Limit: 60 requests per minute per API key for this operation.");
    const responses = doc.components!.responses as Record<string, ResponseObject>;
    expect(responses.TooManyRequests!.description).toContain("2000 requests per minute from one client address");
    expect(responses.PayloadTooLarge!.description).toContain("64 KiB");
    expect(responses.IdempotencyKeyReused!.description).toContain("in the last 24 hours");
    const hook = (doc.webhooks!.paymentResult as Record<string, Operation>).post!;
    expect(hook.description).toContain("reply 2xx within 5 seconds");
    expect(hook.responses.default!.description).toBe(
      "Any other reply, a redirect or no reply within 5 s is a failed attempt; retried after 1 min, 5 min, 30 min, 2 h, 6 h and 24 h (each pause up to 10 % longer at random, never shorter; 7 attempts in all) with the same body.",
    );

    const other = buildOpenApiDocument({
      rateLimitsPerMinute: { perMethod: 7, balance: 3, perIp: 90 },
      maxBodyBytes: 1000,
      webhookTimeoutMs: 1500,
      webhookRetryDelaysMs: [2000, 90_000],
    });
    const otherOp = (path: string, method: string) => (other.paths![path] as Record<string, Operation>)[method]!;
    expect(otherOp("/v1/payments/{id}", "get").description).toEndWith(" Limit: 7 requests per minute per API key for this operation.");
    expect(otherOp("/v1/balance", "get").description).toEndWith(" Limit: 3 requests per minute per API key for this operation.");
    expect((other.components!.responses!.TooManyRequests as ResponseObject).description).toContain(" 90 requests per minute");
    expect((other.components!.responses!.PayloadTooLarge as ResponseObject).description).toContain("accepts, 1000 bytes");
    const otherHook = (other.webhooks!.paymentResult as Record<string, Operation>).post!;
    expect(otherHook.description).toContain("reply 2xx within 1500 milliseconds");
    expect(otherHook.responses.default!.description).toContain("no reply within 1500 ms is a failed attempt; retried after 2 s and 90 s (each pause up to 10 % longer at random, never shorter; 3 attempts in all)");
    const once = buildOpenApiDocument({ ...facts, webhookRetryDelaysMs: [] }).webhooks!.paymentResult as Record<string, Operation>;
    expect(once.post!.responses.default!.description).toContain("is a failed attempt; it is not retried (one attempt in all).");
  });

  test("the server address is the one given, /api by default", () => {
    expect(doc.servers![0]!.url).toBe("/api");
    expect(buildOpenApiDocument(facts, { serverUrl: "https://pay.example/api" }).servers![0]!.url).toBe("https://pay.example/api");
  });
});

describe("renderOpenApiHtml", () => {
  const html = renderOpenApiHtml(doc);

  test("lists every operation, the webhook and every schema", () => {
    for (const [path, item] of Object.entries(doc.paths!)) {
      expect(html).toContain(`<code>${path}</code>`);
      for (const o of Object.values(item as Record<string, OperationObject>)) expect(html).toContain(`id="op-${o.operationId}"`);
    }
    expect(html).toContain('id="op-paymentResultWebhook"');
    // An operation's own description of a shared parameter is the one shown for it.
    expect(html).toContain("a create without <code>paymentMethodId</code> waits for its answer");
    for (const name of Object.keys(doc.components!.schemas!)) expect(html).toContain(`id="schema-${name}"`);
  });

  test("is self-contained: no script and nothing fetched from elsewhere", () => {
    expect(html).not.toMatch(/<script|<link|src=|@import|url\(/i);
    expect(html).not.toMatch(/href="(https?:)?\/\//i);
    expect(html).toContain('href="openapi.json"');
  });

  test("escapes text taken from the document", () => {
    const hostile = buildOpenApiDocument(facts);
    hostile.info.description = "<img src=x onerror=alert(1)>";
    const page = renderOpenApiHtml(hostile);
    expect(page).not.toContain("<img");
    expect(page).toContain("&lt;img src=x onerror=alert(1)&gt;");
  });
});
