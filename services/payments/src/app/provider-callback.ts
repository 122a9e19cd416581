import type { ProviderCallback } from "@payaccept/contracts";
import type { PaymentTrigger } from "../domain/state-machine.ts";
import type { PaymentsDeps } from "./deps.ts";

/** What a callback did: it moved the payment, repeated a result already applied, or was ignored. */
export type CallbackOutcome = { result: "applied" | "repeat" | "ignored"; status: string | null; reason?: string };

const TRIGGERS: Record<string, PaymentTrigger> = { PAID: "pay", DECLINED: "decline" };

/**
 * Applies a verified provider result. PAID moves PENDING, EXPIRED or FAILED to SUCCESS (a late
 * payment is still money received), DECLINED moves PENDING to FAILED. Whatever cannot apply is
 * acknowledged and ignored, so the provider stops retrying it; repeats change nothing.
 */
export function applyProviderCallback(d: PaymentsDeps, cb: ProviderCallback): CallbackOutcome {
  const row = d.repo.byId(cb.merchantPaymentId);
  const ignored = (reason: string): CallbackOutcome => ({ result: "ignored", status: row?.status ?? null, reason });
  if (!row) return ignored("unknown payment");
  if (row.isTest) return ignored("sandbox payments take no provider results");
  if (row.providerSessionId !== cb.sessionId) return ignored("not the payment's provider session");
  const trigger = TRIGGERS[cb.event];
  if (!trigger) return ignored(`unknown event ${cb.event}`);
  const now = d.now();
  const paidAt = cb.paidAt ? Date.parse(cb.paidAt) : now;
  const { decision, row: after } = d.repo.transition(row.id, trigger, now, { patch: trigger === "pay" ? () => ({ paidAt }) : undefined })!;
  if (decision.kind === "move") return { result: "applied", status: after.status };
  if (decision.kind === "already") return { result: "repeat", status: after.status };
  return { result: "ignored", status: after.status, reason: `${cb.event} does not apply to a ${after.status} payment` };
}
