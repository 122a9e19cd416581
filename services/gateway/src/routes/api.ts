import {
  CreatePaymentRequest,
  CreatePayoutRequest,
  CreateRefundRequest,
  DeliveryIdParam,
  DomainError,
  PaymentIdParam,
  PayoutsQuery,
  rpcs,
} from "@payaccept/contracts";
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
import type { IdempotencyClaims } from "../idempotency/claims.ts";
import { idempotent } from "../idempotency/middleware.ts";
import { earlierCreate } from "./create-retry.ts";
import { PaymentsQuery } from "./payments-query.ts";

const JSON_TYPE = { "Content-Type": "application/json" };
/** A payment's deliveries: one per final status and each manual resend adds attempts, not rows; 200 is far beyond any. */
const DELIVERIES_PER_PAYMENT = 200;

export type ApiDeps = {
  nc: NatsConnection;
  directory: KeyDirectory;
  limiters: { perIp: SlidingWindowLimiter; perMethod: SlidingWindowLimiter; balance: SlidingWindowLimiter };
  trustedProxies: TrustedProxies;
  maxBodyBytes: number;
  /** Bound of every NATS request: a missing or stuck service is a 503, never a hang. */
  rpcTimeoutMs: number;
  /** Bound of the test webhook, which waits for the merchant's receiver. */
  slowCallTimeoutMs: number;
  claims: IdempotencyClaims;
};

/**
 * The merchant API (spec §4 and the additions of docs/gateway.md), mounted at /api. Order per
 * request: per-IP limit → route (404/405) → API key (401) → per-key limit → body and parameter
 * validation → Idempotency-Key (every POST) → NATS requests carrying the request id.
 */
export function apiRoutes(deps: ApiDeps): Hono<GatewayEnv> {
  const api = new Hono<GatewayEnv>();
  const auth = requireApiKey(deps.directory);
  const perMethod = limitPerKey(deps.limiters.perMethod);
  // Payouts move the balance the balance limit guards (one ledger writer): the same class, per method.
  const perBalanceMethod = limitPerKey(deps.limiters.balance);
  const body = jsonBody(deps.maxBodyBytes);
  const optionalBody = jsonBody(deps.maxBodyBytes, { optional: true });
  const keyed = (timeoutMs = deps.rpcTimeoutMs) => idempotent(deps.claims, timeoutMs);
  /** One NATS request whose reply's data is the response body, relayed as the service encoded it. */
  const relay = async <R extends Parameters<typeof callForRelay>[1]>(
    c: Context<GatewayEnv>,
    r: R,
    req: Parameters<typeof callForRelay<R>>[2],
    status: 200 | 201 = 200,
    timeoutMs = deps.rpcTimeoutMs,
  ) => c.body(await callForRelay(deps.nc, r, req, timeoutMs, c.get("requestId")), status, JSON_TYPE);
  const shopOf = (c: Context<GatewayEnv>) => c.get("shop");
  /**
   * A list belonging to one payment, read beside the payment itself so that another shop's (or an
   * unknown) payment is a 404 like everywhere else, not an empty list.
   */
  const relayOfPayment = async <R extends Parameters<typeof callForRelay>[1]>(
    c: Context<GatewayEnv>,
    paymentId: string,
    r: R,
    req: Parameters<typeof callForRelay<R>>[2],
  ) => {
    const [, list] = await Promise.all([
      call(deps.nc, rpcs.payments.get, { shopId: shopOf(c).shopId, id: paymentId }, deps.rpcTimeoutMs, c.get("requestId")),
      callForRelay(deps.nc, r, req, deps.rpcTimeoutMs, c.get("requestId")),
    ]);
    return c.body(list, 200, JSON_TYPE);
  };

  api.onError(apiErrorResponse);
  api.use("*", limitPerIp(deps.limiters.perIp, deps.trustedProxies), async (c, next) => {
    await next();
    c.header("Cache-Control", "no-store");
  });

  api.post("/v1/payments", auth, perMethod, body, validate("json", CreatePaymentRequest), keyed(), async (c) => {
    const { shopId } = shopOf(c);
    const request = c.req.valid("json");
    try {
      return await relay(c, rpcs.payments.create, { shopId, request }, 201);
    } catch (e) {
      if (!(c.get("idempotency")?.retry && e instanceof DomainError && e.code === "CONFLICT")) throw e;
      return c.json(await earlierCreate(deps.nc, shopId, request, e, deps.rpcTimeoutMs, c.get("requestId")), 201);
    }
  });
  api.get("/v1/payments", auth, perMethod, validate("query", PaymentsQuery), (c) => {
    const q = c.req.valid("query");
    const { shopId } = shopOf(c);
    return q.mode === "lookup" ? relay(c, rpcs.payments.lookup, { shopId, orderId: q.orderId }) : relay(c, rpcs.payments.list, { shopId, query: q.query });
  });
  api.get("/v1/payments/:id", auth, perMethod, validate("param", PaymentIdParam), (c) =>
    relay(c, rpcs.payments.get, { shopId: shopOf(c).shopId, id: c.req.valid("param").id }),
  );
  api.post("/v1/payments/:id/cancel", auth, perMethod, validate("param", PaymentIdParam), keyed(), (c) =>
    relay(c, rpcs.payments.cancel, { shopId: shopOf(c).shopId, id: c.req.valid("param").id }),
  );
  api.get("/v1/payments/:id/webhooks", auth, perMethod, validate("param", PaymentIdParam), (c) => {
    const paymentId = c.req.valid("param").id;
    return relayOfPayment(c, paymentId, rpcs.webhooks.log, { shopId: shopOf(c).shopId, paymentId, limit: DELIVERIES_PER_PAYMENT });
  });
  api.get("/v1/payments/:id/receipts", auth, perMethod, validate("param", PaymentIdParam), (c) => {
    const paymentId = c.req.valid("param").id;
    return relayOfPayment(c, paymentId, rpcs.receipts.list, { shopId: shopOf(c).shopId, paymentIds: [paymentId] });
  });
  api.get("/v1/balance", auth, limitPerKey(deps.limiters.balance), (c) => relay(c, rpcs.balance.get, { accountId: shopOf(c).accountId }));
  api.post("/v1/payouts", auth, perBalanceMethod, body, validate("json", CreatePayoutRequest), keyed(), (c) => {
    const { shopId, accountId } = shopOf(c);
    const key = c.get("idempotency")?.key;
    // Balance keeps payout keys per account, and an account can have several shops.
    const idempotencyKey = key === undefined ? undefined : `${shopId}:${key}`;
    return relay(c, rpcs.balance.createPayout, { accountId, amountKopecks: c.req.valid("json").amountKopecks, idempotencyKey }, 201);
  });
  api.get("/v1/payouts", auth, perBalanceMethod, validate("query", PayoutsQuery), (c) => {
    const { limit, startingAfter } = c.req.valid("query");
    return relay(c, rpcs.balance.listPayouts, { accountId: shopOf(c).accountId, limit, startingAfter });
  });
  api.post("/v1/webhooks/deliveries/:deliveryId/resend", auth, perMethod, validate("param", DeliveryIdParam), keyed(), (c) =>
    relay(c, rpcs.webhooks.resend, { shopId: shopOf(c).shopId, deliveryId: c.req.valid("param").deliveryId }),
  );
  api.post("/v1/webhooks/test", auth, perMethod, keyed(deps.slowCallTimeoutMs), (c) =>
    relay(c, rpcs.webhooks.test, { shopId: shopOf(c).shopId }, 200, deps.slowCallTimeoutMs),
  );

  api.post(
    "/v1/payments/:id/refunds",
    auth,
    perMethod,
    validate("param", PaymentIdParam),
    optionalBody,
    validate("json", CreateRefundRequest),
    keyed(),
    // The Idempotency-Key also keys the refund in payments' own store, so a retried refund is
    // never made twice even when the reply was lost on the way back.
    (c) => relay(c, rpcs.payments.refund, { shopId: shopOf(c).shopId, id: c.req.valid("param").id, ...c.req.valid("json"), idempotencyKey: c.get("idempotency")?.key }, 201),
  );
  api.get("/v1/payments/:id/refunds", auth, perMethod, validate("param", PaymentIdParam), (c) =>
    relay(c, rpcs.payments.listRefunds, { shopId: shopOf(c).shopId, id: c.req.valid("param").id }),
  );

  api.all("/v1/payments", methodNotAllowed(["GET", "POST"]));
  api.all("/v1/payments/:id", methodNotAllowed(["GET"]));
  api.all("/v1/payments/:id/cancel", methodNotAllowed(["POST"]));
  api.all("/v1/payments/:id/refunds", methodNotAllowed(["GET", "POST"]));
  api.all("/v1/payments/:id/webhooks", methodNotAllowed(["GET"]));
  api.all("/v1/payments/:id/receipts", methodNotAllowed(["GET"]));
  api.all("/v1/balance", methodNotAllowed(["GET"]));
  api.all("/v1/payouts", methodNotAllowed(["GET", "POST"]));
  api.all("/v1/webhooks/deliveries/:deliveryId/resend", methodNotAllowed(["POST"]));
  api.all("/v1/webhooks/test", methodNotAllowed(["POST"]));
  return api;
}
