import { DomainError } from "@payaccept/contracts";
import { healthRoutes, requestContext, type Logger, type ReadinessCheck } from "@payaccept/platform";
import { assetRoutes, type Assets } from "@payaccept/web-ui";
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { accessGuard } from "./access-guard.tsx";
import type { WebDeps } from "./deps.ts";
import type { WebEnv } from "./env.ts";
import { renderError } from "./errors.tsx";
import { actingAsViewer, csrfGuard, webContext } from "./middleware.ts";
import { accountRoutes } from "./routes/account.tsx";
import { auditRoutes } from "./routes/audit.tsx";
import { authRoutes } from "./routes/auth.tsx";
import { balanceRoutes } from "./routes/balance.tsx";
import { detailsRoutes } from "./routes/details.tsx";
import { inviteRoutes } from "./routes/invite.tsx";
import { operatorRoutes } from "./routes/operator.tsx";
import { operatorPayoutRoutes, STATEMENT_PATH } from "./routes/operator-payouts.tsx";
import { overviewRoutes } from "./routes/overview.tsx";
import { paymentRoutes } from "./routes/payments.tsx";
import { methodRoutes } from "./routes/methods.tsx";
import { shopRoutes } from "./routes/shops.tsx";
import { teamRoutes } from "./routes/team.tsx";
import { webhookRoutes } from "./routes/webhook.tsx";

/** Forms are a few fields; anything bigger is refused before it is read. */
const MAX_FORM_BYTES = 16 * 1024;
/**
 * But a bank statement an operator uploads: a day of a busy account is a few thousand lines. It
 * goes on to the balance over NATS in base64, which must stay under the server's 1 MiB message.
 */
const STATEMENT_MAX_BYTES = 512 * 1024;

/**
 * The pages and actions, each behind the access check (access-guard.tsx, the rules in access.ts).
 * Only route registrations: building it touches no dependency, so tests list its routes
 * (tests/dashboard-access.test.ts walks every one with every role).
 */
export function pageRoutes(deps: WebDeps): Hono<WebEnv> {
  const pages = new Hono<WebEnv>();
  pages.use("*", accessGuard(deps));
  const groups = [authRoutes, inviteRoutes, accountRoutes, overviewRoutes, shopRoutes, webhookRoutes, paymentRoutes, methodRoutes, balanceRoutes, detailsRoutes, auditRoutes, teamRoutes, operatorRoutes, operatorPayoutRoutes];
  for (const routes of groups) pages.route("/", routes(deps));
  return pages;
}

/**
 * The dashboard service's HTTP app: request ids, health and metrics (the platform's), the
 * stylesheet and script, and the merchant and operator pages. Every page: security headers, session, language,
 * CSRF on every POST, the access check; errors are friendly HTML pages.
 */
const tooLarge = () => Promise.reject(new DomainError("FORM_TOO_LARGE"));
const formLimit = bodyLimit({ maxSize: MAX_FORM_BYTES, onError: tooLarge });
const statementLimit = bodyLimit({ maxSize: STATEMENT_MAX_BYTES, onError: tooLarge });

export function createDashboardApp(deps: WebDeps & { log: Logger; assets: Assets; readiness: Record<string, ReadinessCheck> }) {
  const web = new Hono<WebEnv>();
  web.use("*", requestContext(deps.log, { inboundTrace: "link" }));
  web.route("/", healthRoutes(deps.readiness));
  web.route("/", assetRoutes(deps.assets, { css: "/assets/dashboard.css", js: "/assets/dashboard.js" }));
  // The page context (language, who is signed in) comes before the size limit: a too-large form
  // is refused on a page in the reader's language, not always in Russian.
  web.use(
    "*",
    webContext(deps),
    (c, next) => (c.req.path === STATEMENT_PATH ? statementLimit : formLimit)(c, next),
    csrfGuard(deps.csrf),
    actingAsViewer(deps),
  );
  web.route("/", pageRoutes(deps));
  web.notFound((c) => renderError(c, new DomainError("PAGE_NOT_FOUND")));
  web.onError((err, c) => renderError(c, err));
  return web;
}
