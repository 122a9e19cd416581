import { DomainError } from "@payaccept/contracts";
import type { Context, MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import { codeThrottleKey, emailThrottleKey } from "../users/throttle.ts";
import { checkSecondFactor } from "../users/two-factor.ts";
import { recordFailure, throttledAttempt } from "../users/users.ts";
import { can, mustEnrol, ROUTE_RULES, type Rule } from "./access.ts";
import type { WebDeps } from "./deps.ts";
import type { Viewer, WebEnv } from "./env.ts";
import { formOf, text } from "./forms.ts";
import { clientAddress, lockedOut, viewerActor } from "./middleware.ts";
import { ConfirmIdentityPage, REAUTH_FIELD } from "./views/confirm-identity.tsx";

/** The rule of the route this request matched (undefined: no page here, the 404 page follows). */
function ruleOf(c: Context<WebEnv>): Rule | undefined {
  const route = matchedRoutes(c).find((r) => r.method !== "ALL");
  if (!route) return undefined;
  const rule = ROUTE_RULES[`${route.method} ${route.path}`];
  // A route without a rule is closed, not open (the access test fails on it first).
  if (!rule) throw new Error(`no access rule for ${route.method} ${route.path}`);
  return rule;
}

/**
 * The one check in front of every page and action (docs/dashboard.md, "Members and roles"): the
 * route's rule from ROUTE_RULES. Signed-out visitors are sent to sign in; a member who must enrol
 * a second factor to their account page; operator pages do not exist for members, nor account pages
 * for operators (404, as before teams); a role without the action gets 403 in the page's language;
 * a sensitive action without a recent proof of identity asks for it first (confirm()).
 */
export function accessGuard(deps: WebDeps): MiddlewareHandler<WebEnv> {
  return async (c, next) => {
    const rule = ruleOf(c);
    if (!rule || rule.who === "anyone") return next();
    const viewer = c.get("viewer");
    if (!viewer) return c.redirect(`/login?next=${encodeURIComponent(c.req.path)}`, 303);
    if (rule.who !== "signedIn" && mustEnrol(viewer)) return c.redirect("/account#two-factor", 303);
    const { role, accountId } = viewer.user;
    if (rule.who === "operator" && role !== "operator") throw new DomainError("PAGE_NOT_FOUND");
    if (rule.who === "member") {
      if (!accountId) throw new DomainError("PAGE_NOT_FOUND");
      if (!can(role, rule.action)) throw new DomainError("ROLE_FORBIDDEN", { role });
      if (rule.secondFactor && !viewer.twoFactor) throw new DomainError("TWO_FACTOR_NOT_ENABLED");
    }
    if ("fresh" in rule && rule.fresh) {
      const asked = await confirm(c, deps, viewer);
      if (asked) return asked;
    }
    await next();
  };
}

/**
 * A sensitive action goes on when its person proved who they are within DASHBOARD_REAUTH_AFTER.
 * Otherwise the answer is a page asking for their code (a recovery code does too), or their
 * password when they have no second factor, with the action's own fields carried along: sending it
 * checks the proof under the sign-in throttle and, when right, does the action in the same request.
 */
async function confirm(c: Context<WebEnv>, deps: WebDeps, viewer: Viewer): Promise<Response | undefined> {
  const now = deps.now();
  if (now - viewer.freshAt <= deps.reauthAfterMs) return undefined;
  const form = await formOf(c);
  const typed = text(form, REAUTH_FIELD);
  const { pathname, search } = new URL(c.req.url);
  const ask = (status: 401 | 429, error?: string) =>
    c.html(<ConfirmIdentityPage page={c.get("page")} action={pathname + search} form={form} twoFactor={viewer.twoFactor} error={error} />, status);
  if (!typed) return ask(401);
  const { users } = deps;
  const address = clientAddress(c, deps.trustedProxies);
  const attempt = viewer.twoFactor
    ? await throttledAttempt(users, codeThrottleKey(viewer.user.id), address, () => checkSecondFactor(users.users, viewer.user.id, typed, now))
    : await throttledAttempt(users, emailThrottleKey(viewer.user.email), address, async () => ((await users.passwords.verify(typed, viewer.user.passwordHash)) ? "password" : undefined));
  recordFailure(users, attempt, viewer.twoFactor ? "code" : "password", viewerActor(c, viewer, deps.trustedProxies), viewer.user.accountId);
  const { t } = c.get("page");
  if (attempt.kind === "locked") return ask(429, lockedOut(c, attempt.retryAfterMs));
  if (attempt.kind === "invalid") return ask(401, viewer.twoFactor ? t.codeInvalid : t.passwordInvalid);
  await users.users.markFresh(viewer.sessionId, now);
  c.get("log").info({ proof: attempt.value }, "identity confirmed for a sensitive action");
  return undefined;
}
