import type { Context } from "hono";
import { getCookie, setCookie } from "hono/cookie";

export const LANGS = ["ru", "en"] as const;
export type Lang = (typeof LANGS)[number];
const isLang = (v: unknown): v is Lang => v === "ru" || v === "en";

/**
 * Russian by default. `?lang=en` (or `ru`) switches and is remembered in a cookie, so the choice
 * survives redirects and later visits.
 */
export function pickLang(c: Context, opts: { cookie: string; secure: boolean }): Lang {
  const asked = c.req.query("lang");
  if (isLang(asked)) {
    if (getCookie(c, opts.cookie) !== asked) {
      setCookie(c, opts.cookie, asked, { httpOnly: true, sameSite: "Lax", secure: opts.secure, path: "/", maxAge: 365 * 24 * 3600 });
    }
    return asked;
  }
  const remembered = getCookie(c, opts.cookie);
  return isLang(remembered) ? remembered : "ru";
}
