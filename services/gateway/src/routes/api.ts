import { CreatePaymentRequest, PaymentIdParam, rpcs } from "@payaccept/contracts";
import { call, callForRelay, type NatsConnection } from "@payaccept/platform";
import { Hono, type Context } from "hono";
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

const JSON_TYPE = { "Content-Type": "application/json" };

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
  /** One NATS request whose reply's data is the response body, relayed as the service encoded it. */
  const relay = async <R extends Parameters<typeof callForRelay>[1]>(c: Context<GatewayEnv>, r: R, req: Parameters<typeof callForRelay<R>>[2], status: 200 | 201 = 200) =>
    c.body(await callForRelay(deps.nc, r, req, deps.rpcTimeoutMs), status, JSON_TYPE);

  api.onError(apiErrorResponse);
  api.use("*", limitPerIp(deps.limiters.perIp, deps.trustedProxies), async (c, next) => {
    await next();
    c.header("Cache-Control", "no-store");
  });

  api.post("/v1/payments", auth, perMethod, jsonBody(deps.maxBodyBytes), validate("json", CreatePaymentRequest), (c) =>
    relay(c, rpcs.payments.create, { shopId: c.get("shop").shopId, request: c.req.valid("json") }, 201),
  );

  api.get("/v1/payments", auth, perMethod, validate("query", PaymentsQuery), (c) => {
    const q = c.req.valid("query");
    const shopId = c.get("shop").shopId;
    return q.mode === "lookup" ? relay(c, rpcs.payments.lookup, { shopId, orderId: q.orderId }) : relay(c, rpcs.payments.list, { shopId, query: q.query });
  });

  api.get("/v1/payments/:id", auth, perMethod, validate("param", PaymentIdParam), (c) =>
    relay(c, rpcs.payments.get, { shopId: c.get("shop").shopId, id: c.req.valid("param").id }),
  );

  api.post("/v1/payments/:id/cancel", auth, perMethod, validate("param", PaymentIdParam), (c) =>
    relay(c, rpcs.payments.cancel, { shopId: c.get("shop").shopId, id: c.req.valid("param").id }),
  );

  // The payment is read first so that another shop's or an unknown payment is a 404, not an empty list.
  api.get("/v1/payments/:id/receipts", auth, perMethod, validate("param", PaymentIdParam), async (c) => {
    const shopId = c.get("shop").shopId;
    const { id } = await call(deps.nc, rpcs.payments.get, { shopId, id: c.req.valid("param").id }, deps.rpcTimeoutMs);
    return relay(c, rpcs.receipts.list, { shopId, paymentIds: [id] });
  });

  api.get("/v1/balance", auth, limitPerKey(deps.limiters.balance), (c) => relay(c, rpcs.balance.get, { accountId: c.get("shop").accountId }));

  api.all("/v1/payments", methodNotAllowed(["GET", "POST"]));
  api.all("/v1/payments/:id", methodNotAllowed(["GET"]));
  api.all("/v1/payments/:id/cancel", methodNotAllowed(["POST"]));
  api.all("/v1/payments/:id/receipts", methodNotAllowed(["GET"]));
  api.all("/v1/balance", methodNotAllowed(["GET"]));
  return api;
}
