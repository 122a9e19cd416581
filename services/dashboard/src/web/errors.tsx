import { DomainError, ERROR_HTTP_STATUS, isReason } from "@payaccept/contracts";
import { describeReason, serviceName } from "@payaccept/web-ui";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { pageStatusOf } from "@payaccept/web-ui";
import type { WebEnv } from "./env.ts";
import { MESSAGES } from "./i18n.ts";
import type { Page } from "./page.ts";
import { ErrorPage } from "./views/error-page.tsx";

function copyFor(status: number, err: unknown, page: Page, method: string): [string, string] {
  const { t } = page;
  if (isReason(err, "INVITE_NOT_FOUND")) return [t.acceptTitle, `${describeReason(page.lang, err.reason, err.params).join(" ")} ${t.askForNewInvite}`];
  if (status === 404) return [t.notFoundTitle, t.notFoundText];
  if (status === 403) {
    // A role without the page or action (access-guard.tsx), said with the role's name in this language.
    if (isReason(err, "ROLE_FORBIDDEN")) return [t.forbiddenTitle, t.forbiddenText(roleName(t, err.params.role))];
    if (err instanceof DomainError && err.reason !== "CSRF_TOKEN_INVALID") return [t.forbiddenTitle, describeReason(page.lang, err.reason, err.params).join(" ")];
    return [t.staleTitle, t.staleText];
  }
  if (status === 503) {
    // The directory committed the change and only its publication waits (directory.ts, propagate).
    if (isReason(err, "DIRECTORY_PUBLISH_PENDING")) return [t.savedNotPublishedTitle, t.savedNotPublishedText];
    const what = serviceName(page.lang, isReason(err, "SERVICE_UNAVAILABLE") ? err.params.service : undefined);
    // A read changed nothing; an action that timed out may still have happened.
    return [t.unavailableTitle, method === "GET" ? t.unavailableText(what) : t.unavailableActionText(what)];
  }
  if (status >= 500) return [t.internalTitle, t.internalText];
  // A refusal with a reason says which ("Слишком большая форма."), in the page's language, not only that it failed.
  if (err instanceof DomainError) return [t.badRequestTitle, `${describeReason(page.lang, err.reason, err.params).join(" ")} ${t.goBackAndRetry}`];
  return [t.badRequestTitle, t.badRequestText];
}

const roleName = (t: Page["t"], role: unknown) => (typeof role === "string" && role in t.roleNames ? t.roleNames[role as keyof typeof t.roleNames] : String(role));

/** A page whose own context could not be built (the failure came first) is shown signed-out, in Russian. */
const fallbackPage = (): Page => ({ lang: "ru", t: MESSAGES.ru, csrf: "", viewer: undefined, otherLangHref: "/?lang=en" });

/** Renders any failure as a friendly HTML page with the right status; unexpected ones are logged. */
export function renderError(c: Context<WebEnv>, err: unknown): Response | Promise<Response> {
  const status = pageStatusOf(err);
  if (status >= 500 && status !== 503) c.get("log")?.error({ err }, "unhandled error");
  else if (status === 503) c.get("log")?.warn({ reason: (err as Error).message }, "a service did not answer");
  if (status === 503) c.header("Retry-After", "30");
  const page = c.get("page") ?? fallbackPage();
  const [title, text] = copyFor(status, err, page, c.req.method);
  // The reason rides along as data (never shown): what refused is told apart without reading the words.
  const reason = err instanceof DomainError ? err.reason : undefined;
  return c.html(<ErrorPage page={page} title={title} text={text} reason={reason} />, status as 400);
}
