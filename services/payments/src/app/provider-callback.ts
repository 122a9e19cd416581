import type { ProviderCallback } from "@payaccept/contracts";
import { paidTrigger, type PaymentTrigger } from "../domain/state-machine.ts";
import type { PaymentRow } from "../store/schema.ts";
import type { PaymentsDeps } from "./deps.ts";

/**
 * What a callback did: it moved the payment, repeated a result already applied, was ignored, or its
 * money was returned; `retry` asks the provider to send it again (the return did not happen yet).
 */
export type CallbackOutcome = { result: "applied" | "repeat" | "ignored" | "returned" | "retry"; status: string | null; reason?: string };

/**
 * Applies a verified provider result. PAID moves PENDING to SUCCESS; for an SBP QR also EXPIRED or
 * FAILED (a late payment is still money received, spec §3). DECLINED moves PENDING to FAILED.
 * Whatever cannot apply is acknowledged and ignored, so the provider stops retrying it; repeats
 * change nothing. A card paid once the payment is no longer PENDING (the expiry won the race against
 * the buyer's last-second submission, or a provider that ignores the deadline) is not turned into a
 * success: its money goes back to the buyer (returnRefusedCard).
 */
export async function applyProviderCallback(d: PaymentsDeps, cb: ProviderCallback): Promise<CallbackOutcome> {
  const row = await d.repo.byId(cb.merchantPaymentId);
  const ignored = (reason: string): CallbackOutcome => ({ result: "ignored", status: row?.status ?? null, reason });
  if (!row) return ignored("unknown payment");
  if (row.isTest) return ignored("sandbox payments take no provider results");
  if (row.providerSessionId !== cb.sessionId) return ignored("not the payment's provider session");
  const trigger: PaymentTrigger | undefined = cb.event === "PAID" ? paidTrigger(row.method) : cb.event === "DECLINED" ? "decline" : undefined;
  if (!trigger) return ignored(`unknown event ${cb.event}`);
  const now = d.now();
  const paidAt = cb.paidAt ? Date.parse(cb.paidAt) : now;
  const paying = trigger !== "decline";
  const { decision, row: after } = (await d.repo.transition(row.id, trigger, now, { patch: paying ? () => ({ paidAt }) : undefined }))!;
  if (decision.kind === "move") return { result: "applied", status: after.status };
  if (decision.kind === "already") return { result: "repeat", status: after.status };
  if (trigger === "payInTime" && (after.status === "EXPIRED" || after.status === "FAILED")) return returnRefusedCard(d, after, cb.sessionId);
  return { result: "ignored", status: after.status, reason: `${cb.event} does not apply to a ${after.status} payment` };
}

/**
 * Refunds a card payment the state machine refused. Idempotent at the provider by the refund id
 * (one return per session: the session id is the refund id), so a failure is answered `retry`: the provider sends the callback again, and with it
 * the refund is tried again, until it is done.
 */
async function returnRefusedCard(d: PaymentsDeps, row: PaymentRow, sessionId: string): Promise<CallbackOutcome> {
  try {
    await d.provider.refund(sessionId, row.amountKopecks, sessionId);
  } catch (e) {
    d.log.error({ err: e, paymentId: row.id, sessionId }, "a card paid after the deadline could not be returned yet; the provider will retry");
    return { result: "retry", status: row.status, reason: `the return of a card paid after the deadline failed: ${(e as Error).message}` };
  }
  return { result: "returned", status: row.status, reason: `a card payment does not apply to a ${row.status} payment; the money was returned` };
}
