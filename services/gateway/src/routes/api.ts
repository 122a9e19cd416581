import { CreatePaymentRequest, PaymentIdParam, rpcs } from "@payaccept/contracts";
import { call, type NatsConnection } from "@payaccept/platform";
import { Hono } from "hono";
import { requireApiKey } from "../http/auth.ts";
import type { TrustedProxies } from "@payaccept/platform";
import type { GatewayEnv } from "../http/env.ts";
import { apiErrorResponse, methodNotAllowed } from "../http/errors.ts";
import { jsonBody } from "../http/json-body.ts";
import type { KeyDirectory } from "../http/key-directory.ts";
import { limitPerIp, limitPerKey } from "../http/rate-limit.ts";
import type { SlidingWindowLimiter } from "../http/rate-limiter.ts";
import { validate } from "../http/validation.ts";
import { PaymentsQuery } from "./payments-query.ts";

export type ApiDeps = {
  nc: NatsConnection;
  directory: KeyDirectory;
  limiters: { perIp: SlidingWindowLimiter; perMethod: SlidingWindowLimiter; balance: SlidingWindowLimiter };
  trustedProxies: TrustedProxies;
  maxBodyBytes: number;
  /** Bound of every NATS request: a missing or stuck service is a 503, never a hang. */
  rpcTimeoutMs: number;
};

/**
 * The merchant API (spec §4), mounted at /api. Order per request: per-IP limit → route (404/405)
 * → API key (401) → per-key limit → body and parameter validation → one NATS request.
 */
export function apiRoutes(deps: ApiDeps): Hono<GatewayEnv> {
  const api = new Hono<GatewayEnv>();
  const auth = requireApiKey(deps.directory);
  const perMethod = limitPerKey(deps.limiters.perMethod);
  const rpc = <R extends Parameters<typeof call>[1]>(r: R, req: Parameters<typeof call<R>>[2]) => call(deps.nc, r, req, deps.rpcTimeoutMs);

  api.onError(apiErrorResponse);
  api.use("*", limitPerIp(deps.limiters.perIp, deps.trustedProxies), async (c, next) => {
    await next();
    c.header("Cache-Control", "no-store");
  });

  api.post("/v1/payments", auth, perMethod, jsonBody(deps.maxBodyBytes), validate("json", CreatePaymentRequest), async (c) =>
    c.json(await rpc(rpcs.payments.create, { shopId: c.get("shop").shopId, request: c.req.valid("json") }), 201),
  );

  api.get("/v1/payments", auth, perMethod, validate("query", PaymentsQuery), async (c) => {
    const q = c.req.valid("query");
    const shopId = c.get("shop").shopId;
    return c.json(
      q.mode === "lookup"
        ? await rpc(rpcs.payments.lookup, { shopId, orderId: q.orderId })
        : await rpc(rpcs.payments.list, { shopId, query: q.query }),
    );
  });

  api.get("/v1/payments/:id", auth, perMethod, validate("param", PaymentIdParam), async (c) =>
    c.json(await rpc(rpcs.payments.get, { shopId: c.get("shop").shopId, id: c.req.valid("param").id })),
  );

  api.post("/v1/payments/:id/cancel", auth, perMethod, validate("param", PaymentIdParam), async (c) =>
    c.json(await rpc(rpcs.payments.cancel, { shopId: c.get("shop").shopId, id: c.req.valid("param").id })),
  );

  api.get("/v1/balance", auth, limitPerKey(deps.limiters.balance), async (c) =>
    c.json(await rpc(rpcs.balance.get, { accountId: c.get("shop").accountId })),
  );

  api.all("/v1/payments", methodNotAllowed(["GET", "POST"]));
  api.all("/v1/payments/:id", methodNotAllowed(["GET"]));
  api.all("/v1/payments/:id/cancel", methodNotAllowed(["POST"]));
  api.all("/v1/balance", methodNotAllowed(["GET"]));
  return api;
}
