import { DomainError, rpcs, type CreatePaymentRequest, type Payment } from "@payaccept/contracts";
import { call, type NatsConnection } from "@payaccept/platform";
import type { Context } from "hono";
import { boundedBy } from "../http/bounded.ts";
import type { GatewayEnv } from "../http/env.ts";
import type { IdempotencyClaims } from "../idempotency/claims.ts";
import { answerRecorded, bucketKey, leaseFor } from "../idempotency/middleware.ts";
import { idempotencyOutcomes } from "../metrics.ts";

/** Whether a payment is what this create request would have made (email and receipt are not part of the Payment view). */
function madeBy(p: Payment, r: CreatePaymentRequest): boolean {
  return (
    p.amountKopecks === r.amountKopecks &&
    p.description === (r.description ?? null) &&
    (r.method === undefined || p.method === r.method) &&
    p.telegramId === (r.telegramId ?? null) &&
    Bun.deepEquals(p.metadata, r.metadata ?? null) &&
    p.successUrl === (r.successUrl ?? null) &&
    p.failUrl === (r.failUrl ?? null)
  );
}

/**
 * A create executed again under an Idempotency-Key whose earlier attempt may have committed (its
 * gateway died, or its answer was lost to a timeout) meets its own orderId: the payment that
 * attempt made is the answer, as the first response would have been. A payment that differs is
 * someone else's, and the conflict stands.
 */
export async function earlierCreate(
  nc: NatsConnection,
  shopId: string,
  request: CreatePaymentRequest,
  conflict: DomainError,
  timeoutMs: number,
  requestId: string,
): Promise<Payment> {
  const existing = await call(nc, rpcs.payments.lookup, { shopId, orderId: request.orderId }, timeoutMs, { requestId }).catch((e) => {
    throw e instanceof DomainError && e.code === "NOT_FOUND" ? conflict : e;
  });
  if (!madeBy(existing, request)) throw conflict;
  return existing;
}

/**
 * A buyer's create whose key payments does not know meets its own orderId: gateways of an earlier
 * release kept creates' keys in the bucket (docs/gateway.md, "Upgrading"), so a retry of a create
 * first sent through one of them is answered as that release would have: its recorded answer
 * replayed, 422 for a key first used with another request, 409 while that request still runs, and
 * after an attempt that ended without an answer the payment it made. Undefined when the bucket has
 * no record of the key (the conflict stands), or cannot be read (a warning: it stands too).
 */
export async function answerOfEarlierRelease(
  c: Context<GatewayEnv>,
  deps: { nc: NatsConnection; claims: IdempotencyClaims },
  request: CreatePaymentRequest,
  conflict: DomainError,
  timeoutMs: number,
): Promise<Response | undefined> {
  const { key, fingerprint } = c.get("idempotency")!;
  const { shopId } = c.get("shop");
  const recorded = await boundedBy(deps.claims.recorded(bucketKey(shopId, key), fingerprint, leaseFor(timeoutMs)), timeoutMs, "idempotency").catch((err) => {
    if (!(err instanceof DomainError && err.code === "UNAVAILABLE")) throw err;
    c.get("log").warn({ idempotencyKey: key }, "idempotency store unavailable; a record of an earlier release is not looked for");
    return undefined;
  });
  if (recorded === undefined) return undefined;
  c.get("log").add({ idempotencyKeptByEarlierRelease: true });
  if (recorded.kind !== "unanswered") return answerRecorded(c, key, recorded);
  idempotencyOutcomes.inc({ outcome: "retry" });
  return c.json(await earlierCreate(deps.nc, shopId, request, conflict, timeoutMs, c.get("requestId")), 201);
}
