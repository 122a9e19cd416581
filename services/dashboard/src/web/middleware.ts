import { DomainError, type AuditActor } from "@payaccept/contracts";
import { clientIp, ipRateKey, type TrustedProxies } from "@payaccept/platform";
import { pickLang, setPageSecurityHeaders, type Csrf } from "@payaccept/web-ui";
import type { Context, MiddlewareHandler } from "hono";
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
    const viewer = found && { user: found.user, sessionId: found.session.idHash, token: found.token };
    c.set("viewer", viewer);
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

/** The signed-in viewer; a signed-out visitor is sent to sign in and brought back afterwards. */
export const signedIn: MiddlewareHandler<WebEnv> = async (c, next) => {
  if (!c.get("viewer")) return c.redirect(`/login?next=${encodeURIComponent(c.req.path)}`, 303);
  await next();
};

/** The merchant's account; operators have none, and merchant pages do not exist for them. */
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

/** Operator pages do not exist for anyone else (404, like any page one may not see). */
export const operatorOnly: MiddlewareHandler<WebEnv> = async (c, next) => {
  if (c.get("viewer")?.user.role !== "operator") throw new DomainError("PAGE_NOT_FOUND");
  await next();
};

/** The signed-in person as the audit log names them: who, from which address and browser. */
export function viewerActor(c: Context<WebEnv>, viewer: Viewer, trusted: TrustedProxies): AuditActor {
  const remote = c.env?.server?.requestIP(c.req.raw)?.address ?? "unknown";
  const userAgent = c.req.header("user-agent")?.slice(0, 512);
  const { user } = viewer;
  return {
    kind: user.role === "operator" ? "operator" : "member",
    id: user.id,
    label: user.email,
    ip: clientIp(remote, c.req.header("x-forwarded-for"), trusted),
    ...(userAgent ? { userAgent } : {}),
  };
}

/** Everything a signed-in person's request asks of the other services is asked in their name (Backend.actingFor). */
export function actingAsViewer(deps: { backend: Backend; trustedProxies: TrustedProxies }): MiddlewareHandler<WebEnv> {
  return async (c, next) => {
    const viewer = c.get("viewer");
    if (!viewer) return next();
    await deps.backend.actingFor(viewerActor(c, viewer, deps.trustedProxies), next);
  };
}

/** The client's address as the sign-in throttle counts it (an IPv6 /64 as one). */
export function clientAddress(c: Context<WebEnv>, trusted: TrustedProxies): string {
  const remote = c.env?.server?.requestIP(c.req.raw)?.address ?? "unknown";
  return ipRateKey(clientIp(remote, c.req.header("x-forwarded-for"), trusted));
}

/** Only our own paths are followed after sign-in (never another site: no open redirect). */
export const safeNext = (next: string | undefined) => (next && /^\/(?![/\\])[\x21-\x7e]*$/.test(next) ? next : undefined);
