import { Hono, type Context } from "hono";
import { Email } from "../../users/credentials-input.ts";
import { ACCOUNT_ROLES, type AccountRole } from "../../store/schema.ts";
import { changeRole, invite, removeMember, revokeInvite, setRequireTwoFactor, type Actor } from "../../team/members.ts";
import type { WebDeps } from "../deps.ts";
import type { WebEnv } from "../env.ts";
import { formOf, text } from "../forms.ts";
import { accountOf, originOf, viewerOf } from "../middleware.ts";
import { TeamPage, type InviteForm } from "../views/team-pages.tsx";
import type { NoticeKey } from "../flash.ts";
import { done, flashFor, refusalsOf } from "./action.ts";

const roleOf = (value: string): AccountRole | undefined => ACCOUNT_ROLES.find((r) => r === value);

/**
 * The team page of an account's owners and admins: members with their roles and second factors,
 * role changes and removals (the member's sessions end at once), invitations, and whether every
 * member must sign in with a second factor. Who may touch whom: members.ts, checkMemberChange.
 */
export function teamRoutes(deps: WebDeps): Hono<WebEnv> {
  const r = new Hono<WebEnv>();
  const actorOf = (c: Context<WebEnv>): Actor & { twoFactor: boolean } => {
    const viewer = viewerOf(c);
    return { ...viewer.user, accountId: accountOf(c), twoFactor: viewer.twoFactor, from: originOf(c, deps.trustedProxies) };
  };

  const page = async (c: Context<WebEnv>, opts: { inviteForm?: InviteForm; errors?: string[] } = {}) => {
    const actor = actorOf(c);
    const [members, invites] = await Promise.all([deps.users.users.members(actor.accountId), deps.users.users.invitesOf(actor.accountId, deps.now())]);
    const flash = opts.inviteForm || opts.errors ? undefined : await flashFor(c, deps, ["notice", "invite"]);
    return (
      <TeamPage
        page={c.get("page")}
        actor={actor}
        team={viewerOf(c).team}
        members={members}
        invites={invites}
        inviteTtlMs={deps.team.inviteTtlMs}
        inviteForm={opts.inviteForm}
        errors={opts.errors}
        flash={flash}
      />
    );
  };
  /**
   * A change of a member: a refusal (the last owner, an admin touching an owner, a member gone
   * meanwhile) is said on the page; a change of one's own role or membership has ended one's own
   * sessions, so the way on is the sign-in page.
   */
  const memberChange = async (c: Context<WebEnv>, targetId: string, action: () => Promise<unknown>, notice: NoticeKey) => {
    const errors = await refusalsOf(c, action, ["FORBIDDEN", "NOT_FOUND"]);
    if (errors.length > 0) return c.html(await page(c, { errors }), 409);
    if (targetId !== viewerOf(c).user.id) return done(c, deps, "/team", { kind: "notice", text: notice });
    await deps.sessions.end(c, undefined);
    return c.redirect("/login", 303);
  };

  r.get("/team", async (c) => c.html(await page(c)));

  r.post("/team/invites", async (c) => {
    const form = await formOf(c);
    const [typed, role] = [text(form, "email"), roleOf(text(form, "role"))];
    const email = Email.safeParse(typed);
    const { t } = c.get("page");
    const invalid = [...(email.success ? [] : [t.emailInvalid]), ...(role ? [] : [t.inviteRole])];
    const refused = (errors: string[]) => page(c, { inviteForm: { email: typed, role: role ?? "viewer", errors } }).then((view) => c.html(view, 400));
    if (!email.success || !role) return refused(invalid);
    let sent: Awaited<ReturnType<typeof invite>> | undefined;
    const errors = await refusalsOf(c, async () => (sent = await invite(deps.team, actorOf(c), email.data, role)), ["FORBIDDEN"]);
    if (!sent) return refused(errors);
    return done(c, deps, "/team#invites", { kind: "invite", email: sent.email, link: sent.link, mail: sent.mail });
  });

  r.post("/team/invites/:inviteId/revoke", async (c) => {
    await revokeInvite(deps.team, actorOf(c), c.req.param("inviteId"));
    return done(c, deps, "/team#invites", { kind: "notice", text: "inviteRevoked" });
  });

  r.post("/team/members/:userId/role", async (c) => {
    const role = roleOf(text(await formOf(c), "role"));
    if (!role) return c.html(await page(c, { errors: [c.get("page").t.inviteRole] }), 400);
    const target = c.req.param("userId");
    return memberChange(c, target, () => changeRole(deps.team, actorOf(c), target, role), "roleChanged");
  });

  r.post("/team/members/:userId/remove", (c) => {
    const target = c.req.param("userId");
    return memberChange(c, target, () => removeMember(deps.team, actorOf(c), target), "memberRemoved");
  });

  r.post("/team/settings", async (c) => {
    const required = text(await formOf(c), "requireTwoFactor") === "on";
    const errors = await refusalsOf(c, () => setRequireTwoFactor(deps.team, actorOf(c), required));
    if (errors.length > 0) return c.html(await page(c, { errors }), 409);
    return done(c, deps, "/team", { kind: "notice", text: "teamSettingsSaved" });
  });

  return r;
}
