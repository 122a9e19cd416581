import type { Context } from "hono";

export const originOf = (url: string): string | null => {
  try {
    const o = new URL(url).origin;
    return o === "null" ? null : o;
  } catch {
    return null;
  }
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
