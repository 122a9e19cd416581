import type { Context } from "hono";

/** The origin of an http(s) URL; null for anything else (opaque origins serialize as "null"). */
export const originOf = (url: string): string | null => {
  const origin = URL.parse(url)?.origin;
  return origin && origin !== "null" ? origin : null;
};

/**
 * The browser's Origin of a form POST, checked against the origins allowed to post it. A request
 * without Origin (not a browser, or a very old one) passes here and must hold a form token.
 */
export function originVerdict(c: Context, allowed: (string | null)[]): "absent" | "allowed" | "foreign" {
  const origin = c.req.header("origin");
  if (origin === undefined) return "absent";
  return allowed.includes(origin) ? "allowed" : "foreign";
}
