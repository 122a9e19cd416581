import { Hono } from "hono";
import type { AppEnv } from "@payaccept/platform";

/** A page's stylesheet and script, served by the service itself (no CDN: offline, strict CSP). */
export type Assets = { css: string; js: string };

/** Reads the stylesheet and bundles the TypeScript entry point for browsers, once at start. */
export async function buildAssets(files: { stylesheet: string; script: string }): Promise<Assets> {
  const built = await Bun.build({ entrypoints: [files.script], target: "browser", minify: true });
  if (!built.success || !built.outputs[0]) throw new AggregateError(built.logs, `${files.script} did not build`);
  return { css: await Bun.file(files.stylesheet).text(), js: await built.outputs[0].text() };
}

export function assetRoutes(assets: Assets, paths: { css: string; js: string }): Hono<AppEnv> {
  const r = new Hono<AppEnv>();
  const headers = (type: string) => ({ "Content-Type": type, "Cache-Control": "public, max-age=300", "X-Content-Type-Options": "nosniff" });
  r.get(paths.css, (c) => c.body(assets.css, 200, headers("text/css; charset=utf-8")));
  r.get(paths.js, (c) => c.body(assets.js, 200, headers("text/javascript; charset=utf-8")));
  return r;
}
