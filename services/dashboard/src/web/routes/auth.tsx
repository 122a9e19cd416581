import { DomainError } from "@payaccept/contracts";
import { Hono, type Context } from "hono";
import { Email, PASSWORD_LENGTH, passwordProblem } from "../../users/credentials-input.ts";
import { signIn, signUp } from "../../users/users.ts";
import type { UserRow } from "../../store/schema.ts";
import type { WebDeps } from "../deps.ts";
import type { WebEnv } from "../env.ts";
import { formOf, text } from "../forms.ts";
import { clientAddress, safeNext } from "../middleware.ts";
import { AuthPage } from "../views/auth-pages.tsx";

const homeOf = (user: UserRow) => (user.role === "operator" ? "/ops/shops" : "/overview");

/** Sign-up, sign-in, sign-out, and the front door that sends each person to their start page. */
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
    const result = await signIn(deps.users, email.data, password, clientAddress(c, deps.trustedProxies));
    if (result.kind === "locked") {
      c.header("Retry-After", String(Math.ceil(result.retryAfterMs / 1000)));
      return refuse(429, page.t.lockedOut(Math.ceil(result.retryAfterMs / 60_000)));
    }
    if (result.kind === "invalid") return refuse(401, page.t.badCredentials);
    return startSession(c, result.user, next);
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
    const tooShortOrLong = passwordProblem(password);
    const errors = [
      ...(email.success ? [] : [t.emailInvalid]),
      ...(tooShortOrLong === "short" ? [t.passwordShort(PASSWORD_LENGTH.min)] : tooShortOrLong === "long" ? [t.passwordLong(PASSWORD_LENGTH.max)] : []),
    ];
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
