import { DomainError } from "@payaccept/contracts";
import { sha256Hex } from "@payaccept/platform";
import { Hono } from "hono";
import { acceptInvite } from "../../team/members.ts";
import type { WebDeps } from "../deps.ts";
import type { WebEnv } from "../env.ts";
import { formOf, text } from "../forms.ts";
import { originOf } from "../middleware.ts";
import { AcceptInvitePage } from "../views/team-pages.tsx";
import { passwordErrors } from "./auth.tsx";

/** An invitation link's token: random, base64url (members.ts). Anything else opens nothing. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/**
 * Accepting an invitation (the link a team's owner or admin sent): the invited address, the role,
 * who invited; a password to set; then signed in as the new member.
 */
export function inviteRoutes(deps: WebDeps): Hono<WebEnv> {
  const r = new Hono<WebEnv>();

  const pendingInvite = async (token: string) => {
    const invite = TOKEN.test(token) ? await deps.users.users.inviteByToken(sha256Hex(token), deps.now()) : undefined;
    if (!invite) throw new DomainError("INVITE_NOT_FOUND");
    return invite;
  };

  r.get("/invite", async (c) => {
    const token = c.req.query("token") ?? "";
    return c.html(<AcceptInvitePage page={c.get("page")} invite={await pendingInvite(token)} token={token} signedInAs={c.get("viewer")?.user.email} />);
  });

  r.post("/invite", async (c) => {
    const form = await formOf(c);
    const token = text(form, "token");
    const invite = await pendingInvite(token);
    const password = text(form, "password");
    const errors = passwordErrors(c.get("page").t, password);
    if (errors.length > 0) return c.html(<AcceptInvitePage page={c.get("page")} invite={invite} token={token} errors={errors} />, 400);
    const user = await acceptInvite(deps.team, token, password, originOf(c, deps.trustedProxies));
    // Whoever was signed in in this browser is signed out: the new member signs in (a new cookie).
    const before = c.get("viewer");
    if (before) await deps.users.users.deleteSession(before.sessionId);
    await deps.sessions.start(c, user.id);
    return c.redirect("/overview", 303);
  });

  return r;
}
