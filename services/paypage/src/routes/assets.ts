import { join } from "node:path";
import { Hono } from "hono";
import type { AppEnv } from "@payaccept/platform";

export type Assets = { css: string; js: string };

/**
 * The page's only stylesheet and script, served by the page itself (no CDN: it works offline and
 * under a strict CSP). The script is bundled from TypeScript at start.
 */
export async function buildAssets(): Promise<Assets> {
  const built = await Bun.build({ entrypoints: [join(import.meta.dir, "../client/pay.ts")], target: "browser", minify: true });
  if (!built.success || !built.outputs[0]) throw new AggregateError(built.logs, "the payment page script did not build");
  return {
    css: await Bun.file(join(import.meta.dir, "../assets/pay.css")).text(),
    js: await built.outputs[0].text(),
  };
}

export function assetRoutes(assets: Assets): Hono<AppEnv> {
  const r = new Hono<AppEnv>();
  const headers = (type: string) => ({ "Content-Type": type, "Cache-Control": "public, max-age=300", "X-Content-Type-Options": "nosniff" });
  r.get("/assets/pay.css", (c) => c.body(assets.css, 200, headers("text/css; charset=utf-8")));
  r.get("/assets/pay.js", (c) => c.body(assets.js, 200, headers("text/javascript; charset=utf-8")));
  return r;
}
