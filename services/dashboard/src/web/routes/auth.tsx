import { DomainError } from "@payaccept/contracts";
import { Hono, type Context } from "hono";
import { Email, PASSWORD_LENGTH, passwordProblem } from "../../users/credentials-input.ts";
import { codeThrottleKey } from "../../users/throttle.ts";
import { checkSecondFactor } from "../../users/two-factor.ts";
import { recordFailure, recordSignIn, signIn, signUp, throttledAttempt } from "../../users/users.ts";
import type { UserRow } from "../../store/schema.ts";
import { personActor } from "../../team/audit.ts";
import type { WebDeps } from "../deps.ts";
import type { WebEnv } from "../env.ts";
import { formOf, text } from "../forms.ts";
import type { Messages } from "../i18n.ts";
import { clientAddress, lockedOut, originOf, safeNext } from "../middleware.ts";
import { AuthPage, CodePage } from "../views/auth-pages.tsx";

const homeOf = (user: UserRow) => (user.role === "operator" ? "/ops/shops" : "/overview");

/** What is wrong with a new password, in the page's words (sign-up, accepting an invitation). */
export function passwordErrors(t: Messages, password: string): string[] {
  const problem = passwordProblem(password);
  if (problem === "short") return [t.passwordShort(PASSWORD_LENGTH.min)];
  if (problem === "long") return [t.passwordLong(PASSWORD_LENGTH.max)];
  return [];
}

/**
 * Sign-up, sign-in (the password, then the code of a user with a second factor), sign-out, and the
 * front door that sends each person to their start page.
 */
export function authRoutes(deps: WebDeps): Hono<WebEnv> {
  const r = new Hono<WebEnv>();

  r.get("/", (c) => {
    const viewer = c.get("viewer");
    return c.redirect(viewer ? homeOf(viewer.user) : "/login", 303);
  });

  r.get("/login", (c) => {
    const viewer = c.get("viewer");
    if (viewer) return c.redirect(homeOf(viewer.user), 303);
    return c.html(<AuthPage mode="signIn" page={c.get("page")} next={safeNext(c.req.query("next"))} />);
  });

  r.post("/login", async (c) => {
    const form = await formOf(c);
    const page = c.get("page");
    const next = safeNext(text(form, "next"));
    const email = Email.safeParse(text(form, "email"));
    const password = text(form, "password");
    const refuse = (status: 401 | 429, error: string) => c.html(<AuthPage mode="signIn" page={page} email={text(form, "email")} errors={[error]} next={next} />, status);
    if (!email.success || password.length === 0 || password.length > PASSWORD_LENGTH.max) return refuse(401, page.t.badCredentials);
    const result = await signIn(deps.users, email.data, password, clientAddress(c, deps.trustedProxies), originOf(c, deps.trustedProxies));
    if (result.kind === "locked") return refuse(429, lockedOut(c, result.retryAfterMs));
    if (result.kind === "invalid") return refuse(401, page.t.badCredentials);
    const user = result.value;
    if (!(await deps.users.users.twoFactorOf(user.id))?.enabledAt) {
      recordSignIn(deps.users, user, originOf(c, deps.trustedProxies), "password");
      return startSession(c, user, next);
    }
    // The password was right; the session waits for the code.
    await deps.challenges.start(c, user.id);
    return c.redirect(`/login/code${next ? `?next=${encodeURIComponent(next)}` : ""}`, 303);
  });

  r.get("/login/code", async (c) => {
    if (!(await deps.challenges.current(c))) return c.redirect("/login", 303);
    return c.html(<CodePage page={c.get("page")} next={safeNext(c.req.query("next"))} />);
  });

  r.post("/login/code", async (c) => {
    const challenge = await deps.challenges.current(c);
    // Five minutes passed, or another tab finished: the password again.
    if (!challenge) return c.redirect("/login", 303);
    const form = await formOf(c);
    const next = safeNext(text(form, "next"));
    const refuse = (status: 401 | 429, error: string) => c.html(<CodePage page={c.get("page")} next={next} error={error} />, status);
    const { users } = deps;
    const result = await throttledAttempt(users, codeThrottleKey(challenge.userId), clientAddress(c, deps.trustedProxies), () =>
      checkSecondFactor(users.users, challenge.userId, text(form, "code"), deps.now()),
    );
    const user = await users.users.userById(challenge.userId);
    const from = originOf(c, deps.trustedProxies);
    if (user) recordFailure(users, result, "code", personActor(user, from), user.accountId);
    if (result.kind === "locked") return refuse(429, lockedOut(c, result.retryAfterMs));
    if (result.kind === "invalid") return refuse(401, c.get("page").t.codeInvalid);
    await deps.challenges.end(c, challenge);
    if (!user) return c.redirect("/login", 303);
    users.log.info({ userId: user.id, factor: result.value }, "signed in with a second factor");
    recordSignIn(users, user, from, result.value);
    if (result.value === "totp") return startSession(c, user, next);
    // A recovery code spent: the account page says how many are left and makes new ones.
    const session = await deps.sessions.start(c, user.id);
    await deps.flash.put(session, "/account", { kind: "recoveryCodeUsed", left: await users.users.recoveryCodesLeft(user.id) });
    return c.redirect("/account", 303);
  });

  r.get("/signup", (c) => {
    const viewer = c.get("viewer");
    if (viewer) return c.redirect(homeOf(viewer.user), 303);
    return c.html(<AuthPage mode="signUp" page={c.get("page")} />);
  });

  r.post("/signup", async (c) => {
    const form = await formOf(c);
    const { t } = c.get("page");
    const email = Email.safeParse(text(form, "email"));
    const password = text(form, "password");
    const errors = [...(email.success ? [] : [t.emailInvalid]), ...passwordErrors(t, password)];
    const refuse = (status: 400 | 409, list: string[]) => c.html(<AuthPage mode="signUp" page={c.get("page")} email={text(form, "email")} errors={list} />, status);
    if (!email.success || errors.length > 0) return refuse(400, errors);
    try {
      return await startSession(c, await signUp(deps.users, email.data, password), undefined);
    } catch (e) {
      if (e instanceof DomainError && e.code === "CONFLICT") return refuse(409, [t.emailTaken]);
      throw e;
    }
  });

  r.post("/logout", async (c) => {
    await deps.sessions.end(c, await deps.sessions.current(c));
    return c.redirect("/login", 303);
  });

  async function startSession(c: Context<WebEnv>, user: UserRow, next: string | undefined) {
    await deps.sessions.start(c, user.id);
    return c.redirect(next ?? homeOf(user), 303);
  }

  return r;
}
