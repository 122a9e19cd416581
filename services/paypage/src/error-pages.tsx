import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { DomainError, ERROR_HTTP_STATUS } from "@payaccept/contracts";
import { fromHttpException, jsonError } from "@payaccept/platform";
import { describeReason, setPageSecurityHeaders } from "@payaccept/web-ui";
import { pageStatusOf } from "@payaccept/web-ui";
import type { Messages } from "./i18n.ts";
import { pageContext } from "./page-context.ts";
import { ErrorPage } from "./views/error-page.tsx";

/** JSON endpoints of the page (live status) answer in the spec's Error shape; everything else is HTML. */
const wantsJson = (c: Context) => /^\/pay\/[^/]+\/(status|events)$/.test(c.req.path);

const copyFor = (status: number, t: Messages): [string, string] => {
  if (status === 404) return [t.notFoundTitle, t.notFoundText];
  if (status === 403) return [t.staleTitle, t.staleText];
  if (status === 413) return [t.tooLargeTitle, t.badRequestText];
  if (status === 503) return [t.unavailableTitle, t.unavailableText];
  if (status >= 500) return [t.internalTitle, t.internalText];
  return [t.badRequestTitle, t.badRequestText];
};

/** The way back from an error: to the payment when the URL names one, else nowhere. */
const backLink = (c: Context, status: number, t: Messages) => {
  const payment = /^\/pay\/([0-9a-f-]{36})(?:\/|$)/i.exec(c.req.path)?.[1];
  if (!payment || status === 404) return undefined;
  return { href: `/pay/${payment}`, label: status >= 500 ? t.tryAgain : t.backToPayment };
};

/** Renders any failure for a buyer: a friendly page (or Error JSON), never a stack trace. */
export function renderError(c: Context, err: unknown, secureCookies: boolean): Response | Promise<Response> {
  const status = pageStatusOf(err);
  if (status >= 500 && status !== 503) c.get("log")?.error({ err }, "unhandled error");
  else if (status === 503) c.get("log")?.warn({ err: (err as Error).message }, "payments unavailable");
  if (status === 503) c.header("Retry-After", "10");
  if (wantsJson(c)) return jsonError(c, err instanceof DomainError ? err : err instanceof HTTPException ? fromHttpException(err) : new DomainError("INTERNAL"));
  const page = pageContext(c, secureCookies);
  const [title, text] = copyFor(status, page.t);
  setPageSecurityHeaders(c);
  // A refusal of the buyer's request says what was wrong, translated from its code; the other pages say enough.
  const detail = err instanceof DomainError && (status === 400 || status === 409) ? describeReason(page.lang, err.reason, err.params) : [];
  return c.html(<ErrorPage page={page} title={title} text={text} detail={detail} link={backLink(c, status, page.t)} />, status as 400);
}
