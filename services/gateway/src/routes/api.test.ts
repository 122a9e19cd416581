import { describe, expect, test } from "bun:test";
import { buildOpenApiDocument } from "@payaccept/contracts/src/openapi.ts";
import { parseConfig } from "@payaccept/platform";
import { apiFacts, gatewayEnv } from "../config.ts";
import { SlidingWindowLimiter } from "../http/rate-limiter.ts";
import { apiRoutes, type ApiDeps } from "./api.ts";

const limiter = () => new SlidingWindowLimiter(1, { windowMs: 60_000, maxKeys: 1 });
/**
 * The app is only built and its routes listed: no request is made, so the NATS connection, the
 * key directory and the idempotency store are never used and need not exist.
 */
const unused = undefined as never;
const api = apiRoutes({
  nc: unused,
  directory: unused,
  claims: unused,
  limiters: { perIp: limiter(), perMethod: limiter(), balance: limiter() },
  trustedProxies: [],
  maxBodyBytes: 1024,
  rpcTimeoutMs: 1000,
  slowCallTimeoutMs: 1000,
  views: unused,
} satisfies ApiDeps);
const doc = buildOpenApiDocument(apiFacts(parseConfig(gatewayEnv, {})));

/** `/v1/payments/:id` → `/v1/payments/{id}`, the document's template. */
const template = (path: string) => path.replace(/:(\w+)/g, "{$1}");

describe("the gateway's routes and the OpenAPI document", () => {
  test("every route is a documented operation and every documented operation a route", () => {
    const routes = new Set(api.routes.filter((r) => r.method !== "ALL").map((r) => `${r.method} ${template(r.path)}`));
    const documented = Object.entries(doc.paths!).flatMap(([path, item]) => Object.keys(item as object).map((m) => `${m.toUpperCase()} ${path}`));
    expect([...routes].sort()).toEqual(documented.sort());
  });

  test("every documented path answers its other methods (405), and nothing else is matched for every method", () => {
    const all = new Set(api.routes.filter((r) => r.method === "ALL").map((r) => template(r.path)));
    expect([...all].sort()).toEqual(["/*", ...Object.keys(doc.paths!)].sort());
  });
});
