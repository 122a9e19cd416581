import { describeReason, qrSvg } from "@payaccept/web-ui";
import { Hono, type Context } from "hono";
import { recordTeamFact } from "../../team/audit.ts";
import { removeMember } from "../../team/members.ts";
import { codeThrottleKey } from "../../users/throttle.ts";
import { confirmEnrolment, enrolmentUri, newRecoveryCodes, removeSecondFactor, startEnrolment } from "../../users/two-factor.ts";
import { recordFailure, throttledAttempt } from "../../users/users.ts";
import type { WebDeps } from "../deps.ts";
import type { WebEnv } from "../env.ts";
import { formOf, text } from "../forms.ts";
import { accountOf, clientAddress, lockedOut, originOf, viewerActor, viewerOf } from "../middleware.ts";
import { AccountPage, type Enrolment } from "../views/account-page.tsx";
import { done, flashFor, refusalsOf } from "./action.ts";

/**
 * One's own account, for members and operators alike: the role, two-factor sign-in (enrolment with
 * a QR code, recovery codes, turning it off), leaving the team.
 */
export function accountRoutes(deps: WebDeps): Hono<WebEnv> {
  const r = new Hono<WebEnv>();

  const page = async (c: Context<WebEnv>, enrolmentError?: string, errors?: string[]) => {
    const viewer = viewerOf(c);
    const factor = await deps.users.users.twoFactorOf(viewer.user.id);
    // An enrolment waiting for its first code shows its QR code again (a reload, a mistyped code).
    const enrolment: Enrolment | undefined =
      factor && factor.enabledAt === null
        ? { qr: await qrSvg(enrolmentUri(factor.secret, viewer.user.email)), secret: factor.secret, error: enrolmentError }
        : undefined;
    const flash = enrolmentError || errors ? undefined : await flashFor(c, deps, ["notice", "recoveryCodes", "recoveryCodeUsed"]);
    return (
      <AccountPage
        page={c.get("page")}
        viewer={viewer}
        enabledAt={factor?.enabledAt ?? null}
        codesLeft={factor?.enabledAt ? await deps.users.users.recoveryCodesLeft(viewer.user.id) : 0}
        enrolment={enrolment}
        flash={flash}
        errors={errors}
      />
    );
  };

  r.get("/account", async (c) => c.html(await page(c)));

  r.post("/account/two-factor", async (c) => {
    await startEnrolment(deps.users.users, viewerOf(c).user, deps.now());
    return c.redirect("/account#two-factor", 303);
  });

  r.post("/account/two-factor/confirm", async (c) => {
    const { user } = viewerOf(c);
    const code = text(await formOf(c), "code");
    const result = await throttledAttempt(deps.users, codeThrottleKey(user.id), clientAddress(c, deps.trustedProxies), () => confirmEnrolment(deps.users.users, user.id, code, deps.now()));
    recordFailure(deps.users, result, "code", viewerActor(c, viewerOf(c), deps.trustedProxies), user.accountId);
    const { t } = c.get("page");
    if (result.kind === "locked") return c.html(await page(c, lockedOut(c, result.retryAfterMs)), 429);
    if (result.kind === "invalid") return c.html(await page(c, t.codeInvalid), 400);
    deps.users.log.info({ userId: user.id }, "second factor enrolled");
    recordTeamFact(deps.users, "two_factor.enabled", viewerActor(c, viewerOf(c), deps.trustedProxies), user.accountId, { target: { type: "member", id: user.id }, after: { twoFactor: true } });
    return done(c, deps, "/account#two-factor", { kind: "recoveryCodes", codes: result.value });
  });

  r.post("/account/two-factor/disable", async (c) => {
    const viewer = viewerOf(c);
    const errors = await refusalsOf(c, () => removeSecondFactor(deps.users.users, viewer.user, viewer.team));
    if (errors.length > 0) return c.html(await page(c, undefined, errors), 409);
    deps.users.log.info({ userId: viewer.user.id }, "second factor removed");
    recordTeamFact(deps.users, "two_factor.disabled", viewerActor(c, viewer, deps.trustedProxies), viewer.user.accountId, { target: { type: "member", id: viewer.user.id }, before: { twoFactor: true }, after: { twoFactor: false } });
    return done(c, deps, "/account#two-factor", { kind: "notice", text: "twoFactorDisabled" });
  });

  r.post("/account/recovery-codes", async (c) => {
    const viewer = viewerOf(c);
    const { user } = viewer;
    if (!viewer.twoFactor) return c.html(await page(c, undefined, describeReason(c.get("page").lang, "TWO_FACTOR_NOT_ENABLED", {})), 409);
    const codes = newRecoveryCodes();
    await deps.users.users.replaceRecoveryCodes(user.id, codes.hashes);
    deps.users.log.info({ userId: user.id }, "recovery codes made anew");
    return done(c, deps, "/account#two-factor", { kind: "recoveryCodes", codes: codes.shown });
  });

  r.post("/account/leave", async (c) => {
    const { user } = viewerOf(c);
    const errors = await refusalsOf(c, () => removeMember(deps.team, { ...user, accountId: accountOf(c), from: originOf(c, deps.trustedProxies) }, user.id));
    if (errors.length > 0) return c.html(await page(c, undefined, errors), 409);
    // The user and their sessions are gone; the cookie goes too.
    await deps.sessions.end(c, undefined);
    return c.redirect("/login", 303);
  });

  return r;
}
