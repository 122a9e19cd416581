import type { ApiFacts } from "@payaccept/contracts";
import { renderOpenApiHtml } from "@payaccept/contracts/src/openapi-html.ts";
import { buildOpenApiDocument } from "@payaccept/contracts/src/openapi.ts";
import { Hono } from "hono";
import { methodNotAllowed } from "../http/errors.ts";

/**
 * GET /openapi.json and /docs, mounted at /api beside the merchant API and ahead of it: the
 * description of the API is public, needs no key and does not count against the rate limits.
 * Both are rendered once at start, since they only change with the code and the configuration.
 */
export function openApiRoutes(facts: ApiFacts): Hono {
  const doc = buildOpenApiDocument(facts);
  const json = JSON.stringify(doc);
  const html = renderOpenApiHtml(doc);
  const cache = { "Cache-Control": "public, max-age=300" };
  const app = new Hono();
  app.get("/openapi.json", (c) => c.body(json, 200, { ...cache, "Content-Type": "application/json; charset=utf-8" }));
  // The page has inline styles and nothing else: forbid every other source.
  app.get("/docs", (c) =>
    c.html(html, 200, { ...cache, "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'" }),
  );
  // Like every path of the API: another method on a known path is 405 with Allow, not 404.
  for (const path of ["/openapi.json", "/docs"]) app.all(path, methodNotAllowed(["GET"]));
  return app;
}
