import { DomainError, type AuditActor } from "@payaccept/contracts";
import { clientIp, ipRateKey, type TrustedProxies } from "@payaccept/platform";
import { pickLang, setPageSecurityHeaders, type Csrf } from "@payaccept/web-ui";
import type { Context, MiddlewareHandler } from "hono";
import { personActor, type Origin } from "../team/audit.ts";
import type { Sessions } from "../users/sessions.ts";
import type { Backend } from "./backend.ts";
import type { Viewer, WebEnv } from "./env.ts";
import { formOf, text } from "./forms.ts";
import { MESSAGES } from "./i18n.ts";

/** Forms before sign-in share one scope; after it, tokens are bound to the session, so sign-out voids them. */
const csrfScope = (viewer: Viewer | undefined) => viewer?.sessionId ?? "signed-out";

/**
 * Every page: security headers, the signed-in viewer (if any), the language, and the CSRF token
 * the page's forms carry.
 */
export function webContext(deps: { sessions: Sessions; csrf: Csrf; secureCookies: boolean }): MiddlewareHandler<WebEnv> {
  return async (c, next) => {
    setPageSecurityHeaders(c);
    const found = await deps.sessions.current(c);
    const viewer: Viewer | undefined = found && {
      user: found.user,
      team: found.team,
      twoFactor: found.twoFactor,
      sessionId: found.session.idHash,
      freshAt: found.session.freshAt,
      token: found.token,
    };
    c.set("viewer", viewer);
    if (viewer) c.get("log").add({ userId: viewer.user.id });
    const lang = pickLang(c, { cookie: "dash_lang", secure: deps.secureCookies });
    c.set("page", {
      lang,
      t: MESSAGES[lang],
      csrf: deps.csrf.tokenFor(c, csrfScope(viewer)),
      viewer: viewer && { email: viewer.user.email, role: viewer.user.role },
      otherLangHref: otherLangHref(c.req.url, lang === "ru" ? "en" : "ru"),
    });
    await next();
  };
}

function otherLangHref(url: string, other: string): string {
  const { pathname, searchParams } = new URL(url);
  searchParams.set("lang", other);
  return `${pathname}?${searchParams}`;
}

/** Every state-changing request must carry the token of a form we rendered; otherwise 403. */
export function csrfGuard(csrf: Csrf): MiddlewareHandler<WebEnv> {
  return async (c, next) => {
    if (c.req.method !== "GET" && c.req.method !== "HEAD") {
      const form = await formOf(c).catch(() => ({}));
      if (!csrf.verify(c, csrfScope(c.get("viewer")), text(form, "csrf"))) throw new DomainError("CSRF_TOKEN_INVALID");
    }
    await next();
  };
}

/** The member's account; operators have none, and account pages do not exist for them (access-guard.tsx lets none through). */
export function accountOf(c: Context<WebEnv>): string {
  const accountId = c.get("viewer")?.user.accountId;
  if (!accountId) throw new DomainError("PAGE_NOT_FOUND");
  return accountId;
}

export function viewerOf(c: Context<WebEnv>): Viewer {
  const viewer = c.get("viewer");
  if (!viewer) throw new DomainError("PAGE_NOT_FOUND");
  return viewer;
}

/** Where the request came from, as the audit log and the throttles name it. */
export function originOf(c: Context<WebEnv>, trusted: TrustedProxies): Origin {
  const remote = c.env?.server?.requestIP(c.req.raw)?.address ?? "unknown";
  const userAgent = c.req.header("user-agent")?.slice(0, 512);
  return { ip: clientIp(remote, c.req.header("x-forwarded-for"), trusted), ...(userAgent ? { userAgent } : {}) };
}

/** The signed-in person as the audit log names them: who, in which role, from which address and browser. */
export const viewerActor = (c: Context<WebEnv>, viewer: Viewer, trusted: TrustedProxies): AuditActor => personActor(viewer.user, originOf(c, trusted));

/** Everything a signed-in person's request asks of the other services is asked in their name (Backend.actingFor). */
export function actingAsViewer(deps: { backend: Backend; trustedProxies: TrustedProxies }): MiddlewareHandler<WebEnv> {
  return async (c, next) => {
    const viewer = c.get("viewer");
    if (!viewer) return next();
    await deps.backend.actingFor(viewerActor(c, viewer, deps.trustedProxies), next);
  };
}

/** The client's address as the sign-in throttle counts it (an IPv6 /64 as one). */
export const clientAddress = (c: Context<WebEnv>, trusted: TrustedProxies): string => ipRateKey(originOf(c, trusted).ip);

/** A throttled attempt refused: Retry-After on the answer, and the words saying how long, in the page's language. */
export function lockedOut(c: Context<WebEnv>, retryAfterMs: number): string {
  c.header("Retry-After", String(Math.ceil(retryAfterMs / 1000)));
  return c.get("page").t.lockedOut(Math.ceil(retryAfterMs / 60_000));
}

/** Only our own paths are followed after sign-in (never another site: no open redirect). */
export const safeNext = (next: string | undefined) => (next && /^\/(?![/\\])[\x21-\x7e]*$/.test(next) ? next : undefined);
