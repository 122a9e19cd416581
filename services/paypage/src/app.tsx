import { createServiceApp, type Logger, type ReadinessCheck } from "@payaccept/platform";
import { assetRoutes, type Assets, type Csrf } from "@payaccept/web-ui";
import { DomainError } from "@payaccept/contracts";
import type { CheckoutClient } from "./checkout.ts";
import { renderError } from "./error-pages.tsx";
import { liveRoutes } from "./routes/live.ts";
import { payRoutes } from "./routes/pay.tsx";
import type { StatusFeed } from "./status-feed.ts";

export type PaypageDeps = {
  log: Logger;
  checkout: CheckoutClient;
  feed: StatusFeed;
  csrf: Csrf;
  assets: Assets;
  secureCookies: boolean;
  recheckMs: number;
  closing: AbortSignal;
  readiness: Record<string, ReadinessCheck>;
};

/** The hosted payment page: HTML for buyers, JSON only for the live-status endpoints. */
export function createPaypageApp(deps: PaypageDeps) {
  const app = createServiceApp(deps.log, deps.readiness, { inboundTrace: "link" });
  app.route("/", assetRoutes(deps.assets, { css: "/assets/pay.css", js: "/assets/pay.js" }));
  app.route("/", payRoutes({ checkout: deps.checkout, csrf: deps.csrf, secureCookies: deps.secureCookies }));
  app.route("/", liveRoutes({ checkout: deps.checkout, feed: deps.feed, recheckMs: deps.recheckMs, closing: deps.closing }));
  app.notFound((c) => renderError(c, new DomainError("ROUTE_NOT_FOUND", { method: c.req.method, path: c.req.path }), deps.secureCookies));
  app.onError((err, c) => renderError(c, err, deps.secureCookies));
  return app;
}
