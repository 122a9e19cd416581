import { UNNAMED_CALLER, type AuditAction } from "@payaccept/contracts";
import type { PaymentsDeps } from "./deps.ts";

/**
 * Records what the caller had done (a refund, a capture, a void, a charge, a method revoked) in the
 * audit log in its name (docs/directory.md, "Audit log"), after the commit. The entry's id is the
 * action and what it acted on, so every repeat of the action (a retry with its key, a hedged
 * copy) is one entry, also when the first one's entry was lost.
 */
export function recordAction(
  d: PaymentsDeps,
  action: AuditAction,
  target: { type: "refund" | "payment" | "payment_method"; id: string },
  owner: { accountId: string; shopId: string },
  at: number,
  after: Record<string, unknown>,
): void {
  d.audit.record({ id: `${action}:${target.id}`, action, actor: d.actor ?? UNNAMED_CALLER, at, accountId: owner.accountId, shopId: owner.shopId, target, after, requestId: d.requestId });
}
