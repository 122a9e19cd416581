import { DomainError, rpcs, type CreatePaymentRequest, type Payment } from "@payaccept/contracts";
import { call, type NatsConnection } from "@payaccept/platform";

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
