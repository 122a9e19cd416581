import { DomainError, ERROR_HTTP_STATUS, rpcs, type CreatePaymentRequest, type ErrorBody, type KeyedAnswer } from "@payaccept/contracts";
import { call, callForRelay } from "@payaccept/platform";
import type { TrustedProxies } from "@payaccept/platform";
import { Hono, type Context, type Handler } from "hono";
import { apiKeyActor } from "../http/auth.ts";
import type { GatewayEnv } from "../http/env.ts";
import { answered, apiErrorResponse } from "../http/errors.ts";
import { limitPerIp } from "../http/rate-limit.ts";
import type { SlidingWindowLimiter } from "../http/rate-limiter.ts";
import { replay } from "../idempotency/middleware.ts";
import { idempotencyOutcomes } from "../metrics.ts";
import type { PaymentViews } from "../reads/payment-views.ts";
import { answerOfEarlierRelease, earlierCreate } from "./create-retry.ts";
import { registerOperations, type Admit, type OperationDeps, type OperationHandlers, type OperationTools } from "./operations.ts";

const JSON_TYPE = { "Content-Type": "application/json" };
/** A payment's deliveries: one per final status and each manual resend adds attempts, not rows; 200 is far beyond any. */
const DELIVERIES_PER_PAYMENT = 200;

export type ApiDeps = OperationDeps & {
  limiters: OperationDeps["limiters"] & { perIp: SlidingWindowLimiter };
  trustedProxies: TrustedProxies;
  /** Payments read before, answered from memory (docs/gateway.md, "Reads from the read model"). */
  views: PaymentViews;
};

const shopOf = (c: Context<GatewayEnv>) => c.get("shop");

type Rpc = Parameters<typeof callForRelay>[1];

/**
 * A buyer's create under an Idempotency-Key, kept by payments in the payment's own transaction:
 * one call, answered as payments answers (the first answer again, as a replay, for a key that
 * has one); a fresh refusal comes back as an error, like any create's. The orderId taken, fresh or
 * replayed, may be a create first sent through a gateway of an earlier release, whose key is in
 * the bucket: answerOfEarlierRelease answers it, only on that refusal's path.
 */
async function keyedCreate(c: Context<GatewayEnv>, deps: ApiDeps, request: CreatePaymentRequest, timeoutMs: number): Promise<Response> {
  const { key, fingerprint } = c.get("idempotency")!;
  const orderIdTaken = (conflict: DomainError) => answerOfEarlierRelease(c, deps, request, conflict, timeoutMs);
  let answer: KeyedAnswer;
  try {
    answer = await call(deps.nc, rpcs.payments.createKeyed, { shopId: shopOf(c).shopId, request, idempotency: { key, fingerprint } }, timeoutMs, { requestId: c.get("requestId") });
  } catch (e) {
    if (!(e instanceof DomainError && ERROR_HTTP_STATUS[e.code] < 500)) throw e;
    const earlier = e.reason === "ORDER_ID_TAKEN" ? await orderIdTaken(e) : undefined;
    if (earlier) return earlier;
    idempotencyOutcomes.inc({ outcome: e.reason === "IDEMPOTENCY_KEY_REUSED" ? "mismatch" : "claimed" });
    throw e;
  }
  if (answer.replayed && answer.status === 409 && (JSON.parse(answer.body) as ErrorBody).code === "ORDER_ID_TAKEN") {
    const earlier = await orderIdTaken(new DomainError("ORDER_ID_TAKEN"));
    if (earlier) return earlier;
  }
  idempotencyOutcomes.inc({ outcome: answer.replayed ? "replay" : "claimed" });
  return answer.replayed ? replay(c, answer.status, answer.body) : c.body(answer.body, answer.status as 201, JSON_TYPE);
}

/**
 * What each operation does once its request passed every check; the checks, statuses and
 * schemas are the operation's definition (packages/contracts/src/operations.ts).
 */
const handlers = (deps: ApiDeps): OperationHandlers => {
  /**
   * A list belonging to one payment, read beside the payment itself so that another shop's (or an
   * unknown) payment is a 404 like everywhere else, not an empty list.
   */
  const listOfPayment =
    <R extends Rpc>(list: R, request: (shopId: string, paymentId: string) => Parameters<typeof callForRelay<R>>[2]) =>
    ({ timeoutMs, status }: OperationTools): Handler<GatewayEnv, string, { out: { param: { id: string } } }> =>
    async (c) => {
      const { shopId } = shopOf(c);
      const paymentId = c.req.valid("param").id;
      const [, items] = await Promise.all([
        call(deps.nc, rpcs.payments.get, { shopId, id: paymentId }, timeoutMs, { requestId: c.get("requestId") }),
        callForRelay(deps.nc, list, request(shopId, paymentId), timeoutMs, { requestId: c.get("requestId") }),
      ]);
      return c.body(items, status, JSON_TYPE);
    };
  return {
    createPayment:
      ({ relay, status, timeoutMs }) =>
      async (c) => {
        const { shopId } = shopOf(c);
        const request = c.req.valid("json");
        if (c.get("idempotency")?.inService) return keyedCreate(c, deps, request, timeoutMs);
        try {
          // A charge without the buyer is recorded in the key's name; other creates carry no actor (the hot path).
          return await relay(c, rpcs.payments.create, { shopId, request }, request.paymentMethodId === undefined ? undefined : apiKeyActor(c));
        } catch (e) {
          if (!(c.get("idempotency")?.retry && e instanceof DomainError && e.code === "CONFLICT")) throw e;
          return c.json(await earlierCreate(deps.nc, shopId, request, e, timeoutMs, c.get("requestId")), status);
        }
      },
    listPayments:
      ({ ask, relay, status }) =>
      async (c) => {
        const q = c.req.valid("query");
        const { shopId } = shopOf(c);
        if (q.mode !== "lookup") return relay(c, rpcs.payments.list, { shopId, query: q.query });
        return c.body(await deps.views.byOrderId(shopId, q.orderId, () => ask(c, rpcs.payments.lookup, { shopId, orderId: q.orderId })), status, JSON_TYPE);
      },
    getPayment:
      ({ ask, status }) =>
      async (c) => {
        const { shopId } = shopOf(c);
        const { id } = c.req.valid("param");
        return c.body(await deps.views.byId(shopId, id, () => ask(c, rpcs.payments.get, { shopId, id })), status, JSON_TYPE);
      },
    cancelPayment:
      ({ relay }) =>
      (c) =>
        relay(c, rpcs.payments.cancel, { shopId: shopOf(c).shopId, id: c.req.valid("param").id }, apiKeyActor(c)),
    // Capture is idempotent at the acquirer and in payments' state machine: a retry takes nothing twice.
    capturePayment:
      ({ relay }) =>
      (c) =>
        relay(c, rpcs.payments.capture, { shopId: shopOf(c).shopId, id: c.req.valid("param").id, ...c.req.valid("json") }, apiKeyActor(c)),
    completeSandboxPayment:
      ({ relay }) =>
      (c) =>
        relay(c, rpcs.payments.sandboxComplete, { shopId: shopOf(c).shopId, id: c.req.valid("param").id, request: c.req.valid("json") }),
    getPaymentMethod:
      ({ relay }) =>
      (c) =>
        relay(c, rpcs.payments.getMethod, { shopId: shopOf(c).shopId, id: c.req.valid("param").id }),
    listPaymentMethods:
      ({ relay }) =>
      (c) =>
        relay(c, rpcs.payments.listMethods, { shopId: shopOf(c).shopId, query: c.req.valid("query") }),
    revokePaymentMethod:
      ({ relay }) =>
      (c) =>
        relay(c, rpcs.payments.revokeMethod, { shopId: shopOf(c).shopId, id: c.req.valid("param").id }, apiKeyActor(c)),
    // The Idempotency-Key also keys the refund in payments' own store, so a retried refund is
    // never made twice even when the reply was lost on the way back.
    refundPayment:
      ({ relay }) =>
      (c) =>
        relay(
          c,
          rpcs.payments.refund,
          { shopId: shopOf(c).shopId, id: c.req.valid("param").id, ...c.req.valid("json"), idempotencyKey: c.get("idempotency")?.key },
          apiKeyActor(c),
        ),
    listRefunds:
      ({ relay }) =>
      (c) =>
        relay(c, rpcs.payments.listRefunds, { shopId: shopOf(c).shopId, id: c.req.valid("param").id }),
    listPaymentWebhooks: listOfPayment(rpcs.webhooks.log, (shopId, paymentId) => ({ shopId, paymentId, limit: DELIVERIES_PER_PAYMENT })),
    listPaymentReceipts: listOfPayment(rpcs.receipts.list, (shopId, paymentId) => ({ shopId, paymentIds: [paymentId] })),
    resendWebhook:
      ({ relay }) =>
      (c) =>
        relay(c, rpcs.webhooks.resend, { shopId: shopOf(c).shopId, deliveryId: c.req.valid("param").deliveryId }),
    sendTestWebhook:
      ({ relay }) =>
      (c) =>
        relay(c, rpcs.webhooks.test, { shopId: shopOf(c).shopId }),
    createPayout:
      ({ relay }) =>
      (c) => {
        const { shopId, accountId } = shopOf(c);
        const key = c.get("idempotency")?.key;
        // Balance keeps payout keys per account, and an account can have several shops.
        const idempotencyKey = key === undefined ? undefined : `${shopId}:${key}`;
        return relay(c, rpcs.balance.createPayout, { accountId, amountKopecks: c.req.valid("json").amountKopecks, idempotencyKey }, apiKeyActor(c));
      },
    listPayouts:
      ({ relay }) =>
      (c) => {
        const { limit, startingAfter } = c.req.valid("query");
        return relay(c, rpcs.balance.listPayouts, { accountId: shopOf(c).accountId, limit, startingAfter });
      },
    getPayout:
      ({ relay }) =>
      (c) =>
        relay(c, rpcs.balance.getPayout, { accountId: shopOf(c).accountId, id: c.req.valid("param").id }),
    getPayoutSchedule:
      ({ relay }) =>
      (c) =>
        relay(c, rpcs.balance.getSchedule, { accountId: shopOf(c).accountId }),
    getBalance:
      ({ relay }) =>
      (c) =>
        relay(c, rpcs.balance.get, { accountId: shopOf(c).accountId }),
  };
};

/**
 * The merchant API (spec §4 and the additions of docs/gateway.md), mounted at /api. Order per
 * request: route → per-IP limit (every route's, the 404 of an unknown path's too) → the
 * operation's chain (registerOperations: API key, per-key limit, validation, Idempotency-Key) →
 * NATS requests carrying the request id. The limit is a call of each route's handler, not a
 * middleware layer of its own: one Hono layer per request.
 */
export function apiRoutes(deps: ApiDeps): Hono<GatewayEnv> {
  const api = new Hono<GatewayEnv>();
  api.onError(apiErrorResponse);
  const perIp = limitPerIp(deps.limiters.perIp, deps.trustedProxies);
  // An error of the route's own answered in the Error shape inside the limit, so that it carries the RateLimit headers too.
  const admit: Admit = (c, admitted) => perIp(c, () => answered(c, admitted));
  registerOperations(api, handlers(deps), deps, admit);
  // Registered last: a path no route above took is the app's 404 (ROUTE_NOT_FOUND), counted and limited like any.
  api.all("/*", (c) => admit(c, () => c.notFound()));
  return api;
}
