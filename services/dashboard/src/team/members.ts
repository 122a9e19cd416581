import { DomainError } from "@payaccept/contracts";
import { randomToken, sha256Hex, type Logger } from "@payaccept/platform";
import type { Passwords } from "../users/passwords.ts";
import type { AccountRole, InviteRow, TeamRow, UserRow } from "../store/schema.ts";
import { isUniqueViolation, type Member, type UserStore } from "../store/user-store.ts";
import { personActor, recordTeamFact, type Origin, type TeamAudit } from "./audit.ts";
import type { Mailer } from "./mailer.ts";
import { inviteMail } from "./invite-mail.ts";

export type TeamDeps = {
  users: UserStore;
  passwords: Passwords;
  /** Set when SMTP_URL is: invitations are also mailed. */
  mailer?: Mailer;
  log: Logger;
  audit: TeamAudit;
  now: () => number;
  inviteTtlMs: number;
  /** The dashboard's public address, which invitation links point to. */
  publicUrl: string;
};

/** A member acting on their own team (the access check has let them: web/access.ts), and from where. */
export type Actor = Pick<UserRow, "id" | "email" | "role"> & { accountId: string; from: Origin };

/**
 * Who may touch whom, beyond the role table (web/access.ts): only an owner grants, changes or
 * removes the owner role, and the last owner stays one. `next` is the target's role after the
 * change, or "gone" when they leave or are removed. Returns the target, or throws the refusal.
 */
export function checkMemberChange(actor: Actor, members: Member[], targetId: string, next: AccountRole | "gone"): Member {
  const target = members.find((m) => m.id === targetId);
  if (!target) throw new DomainError("MEMBER_NOT_FOUND");
  if ((target.role === "owner" || next === "owner") && actor.role !== "owner") throw new DomainError("OWNER_ONLY");
  const owners = members.filter((m) => m.role === "owner");
  if (target.role === "owner" && next !== "owner" && owners.length === 1) throw new DomainError("LAST_OWNER");
  return target;
}

/** Only an owner invites an owner (an admin cannot make someone above themselves). */
function checkGrant(actor: Actor, role: AccountRole): void {
  if (role === "owner" && actor.role !== "owner") throw new DomainError("OWNER_ONLY");
}

export type InviteResult = { link: string; email: string; role: AccountRole; mail: "sent" | "failed" | "off" };

/**
 * Invites an address to the actor's team: a link with a random token shown once to the inviter
 * (and mailed when SMTP_URL is set), valid for DASHBOARD_INVITE_TTL, replacing an earlier pending
 * invitation of the same address. An address that already signs in is refused: one sign-in
 * belongs to one account.
 */
export async function invite(deps: TeamDeps, actor: Actor, email: string, role: AccountRole): Promise<InviteResult> {
  checkGrant(actor, role);
  if (await deps.users.userByEmail(email)) throw new DomainError("INVITEE_HAS_SIGN_IN");
  const token = randomToken(32);
  const now = deps.now();
  const row: InviteRow = {
    id: Bun.randomUUIDv7(),
    accountId: actor.accountId,
    email,
    role,
    tokenHash: sha256Hex(token),
    invitedByEmail: actor.email,
    createdAt: now,
    expiresAt: now + deps.inviteTtlMs,
  };
  await deps.users.putInvite(row, now);
  // In the query, not the path: the access log writes paths, never queries.
  const link = `${deps.publicUrl.replace(/\/+$/, "")}/invite?token=${token}`;
  deps.log.info({ accountId: actor.accountId, inviteId: row.id, role, by: actor.id }, "member invited");
  recordTeamFact(deps, "member.invited", personActor(actor, actor.from), actor.accountId, { id: row.id, target: { type: "invite", id: row.id }, after: { email, role, expiresAt: new Date(row.expiresAt).toISOString() } });
  return { link, email, role, mail: await mailInvite(deps, row, link) };
}

async function mailInvite(deps: TeamDeps, invite: InviteRow, link: string): Promise<InviteResult["mail"]> {
  if (!deps.mailer) return "off";
  try {
    await deps.mailer.send(inviteMail(invite, link, deps.inviteTtlMs));
    return "sent";
  } catch (e) {
    // The inviter has the link on the page; the reason is the server's, never the link.
    deps.log.warn({ inviteId: invite.id, reason: (e as Error).message }, "invitation mail not sent");
    return "failed";
  }
}

/**
 * Accepts an invitation: the user is made with the invited email and role and the invitation is
 * gone, in one transaction (a second acceptance, on any replica, finds nothing). INVITE_NOT_FOUND
 * when used, withdrawn or expired; EMAIL_TAKEN when the address signed up meanwhile.
 */
export async function acceptInvite(deps: TeamDeps, token: string, password: string, from: Origin): Promise<UserRow> {
  const passwordHash = await deps.passwords.hash(password);
  const now = deps.now();
  try {
    const taken = await deps.users.tx(async (t) => {
      const invite = await t.takeInvite(sha256Hex(token), now);
      if (!invite) return undefined;
      const user: UserRow = { id: Bun.randomUUIDv7(), accountId: invite.accountId, email: invite.email, passwordHash, role: invite.role, createdAt: now };
      await t.insertUser(user);
      return { user, invite };
    });
    if (!taken) throw new DomainError("INVITE_NOT_FOUND");
    const { user, invite } = taken;
    deps.log.info({ accountId: user.accountId, userId: user.id, role: user.role }, "invitation accepted");
    recordTeamFact(deps, "member.joined", personActor(user, from), user.accountId, {
      id: user.id,
      target: { type: "member", id: user.id },
      after: { email: user.email, role: user.role, invitedBy: invite.invitedByEmail, inviteId: invite.id },
    });
    return user;
  } catch (e) {
    if (isUniqueViolation(e)) throw new DomainError("EMAIL_TAKEN");
    throw e;
  }
}

/**
 * A change of one member of the actor's team, holding the team's row (two owners demoting each
 * other at once on two replicas: one of them stays owner). The member's sessions end in the same
 * transaction, so their next request, on any replica, is signed out.
 */
async function changeMember(deps: TeamDeps, actor: Actor, targetId: string, next: AccountRole | "gone"): Promise<Member> {
  const target = await deps.users.tx(async (t) => {
    await t.teamForUpdate(actor.accountId);
    const target = checkMemberChange(actor, await t.members(actor.accountId), targetId, next);
    if (next === "gone") await t.deleteUser(target.id);
    else if (next !== target.role) {
      await t.setRole(target.id, next);
      await t.endSessionsOf(target.id);
    }
    return target;
  });
  deps.log.info({ accountId: actor.accountId, userId: target.id, before: target.role, after: next, by: actor.id }, next === "gone" ? "member removed" : "member role changed");
  if (next !== target.role) {
    const fact = { target: { type: "member", id: target.id }, before: { email: target.email, role: target.role } };
    if (next === "gone") recordTeamFact(deps, "member.removed", personActor(actor, actor.from), actor.accountId, { ...fact, after: { left: target.id === actor.id } });
    else recordTeamFact(deps, "member.role_changed", personActor(actor, actor.from), actor.accountId, { ...fact, after: { email: target.email, role: next } });
  }
  return target;
}

export const changeRole = (deps: TeamDeps, actor: Actor, targetId: string, role: AccountRole) => changeMember(deps, actor, targetId, role);
export const removeMember = (deps: TeamDeps, actor: Actor, targetId: string) => changeMember(deps, actor, targetId, "gone");

/** Whether every member must sign in with a second factor; turning it on needs the actor to have one. */
export async function setRequireTwoFactor(deps: TeamDeps, actor: Actor & { twoFactor: boolean }, required: boolean): Promise<TeamRow | undefined> {
  if (required && !actor.twoFactor) throw new DomainError("TWO_FACTOR_NOT_ENABLED");
  const before = await deps.users.tx(async (t) => {
    const team = await t.teamForUpdate(actor.accountId);
    if (team && team.requireTwoFactor !== required) await t.setRequireTwoFactor(actor.accountId, required);
    return team;
  });
  deps.log.info({ accountId: actor.accountId, before: before?.requireTwoFactor, required, by: actor.id }, "team two-factor requirement set");
  if (before && before.requireTwoFactor !== required)
    recordTeamFact(deps, "two_factor.required_changed", personActor(actor, actor.from), actor.accountId, { before: { required: before.requireTwoFactor }, after: { required } });
  return before;
}

/** Withdraws a pending invitation of the actor's team (its link opens nothing from now on). */
export async function revokeInvite(deps: TeamDeps, actor: Actor, inviteId: string): Promise<void> {
  const invite = (await deps.users.invitesOf(actor.accountId, deps.now())).find((i) => i.id === inviteId);
  if (!(await deps.users.deleteInvite(actor.accountId, inviteId))) return;
  recordTeamFact(deps, "member.invite_revoked", personActor(actor, actor.from), actor.accountId, {
    id: inviteId,
    target: { type: "invite", id: inviteId },
    before: invite ? { email: invite.email, role: invite.role } : null,
  });
}
