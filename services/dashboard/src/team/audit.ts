import type { AuditAction, AuditActor } from "@payaccept/contracts";
import type { AuditFields, AuditTrail } from "@payaccept/platform";
import type { UserRow } from "../store/schema.ts";

/** The audit log as the dashboard writes to it: its own security facts (docs/dashboard.md, "The team in the audit log"). */
export type TeamAudit = Pick<AuditTrail, "record">;

/** Where a request came from: the client's address (behind TRUSTED_PROXIES) and browser. */
export type Origin = { ip: string; userAgent?: string };

/**
 * A person of the dashboard as the audit log names them: id, email, their role when they acted,
 * from where. Without an id and role: an email typed at sign-in that is nobody's.
 */
export function personActor(user: Pick<UserRow, "email"> & Partial<Pick<UserRow, "id" | "role">>, from: Origin): AuditActor {
  return {
    kind: user.role === "operator" ? "operator" : "member",
    ...(user.id ? { id: user.id } : {}),
    label: user.email,
    ...(user.role && user.role !== "operator" ? { role: user.role } : {}),
    ip: from.ip,
    ...(from.userAgent ? { userAgent: from.userAgent } : {}),
  };
}

/**
 * Records one of the team's facts after it committed. `id` names the fact when it has one of its
 * own (an invitation, a new member); otherwise each call is a fact of its own.
 */
export function recordTeamFact(
  deps: { audit: TeamAudit; now: () => number },
  action: AuditAction,
  actor: AuditActor,
  accountId: string | null,
  fact: Pick<AuditFields, "target" | "before" | "after"> & { id?: string } = {},
): void {
  const { id, ...rest } = fact;
  deps.audit.record({ id: `${action}:${id ?? Bun.randomUUIDv7()}`, action, actor, at: deps.now(), accountId, ...rest });
}
