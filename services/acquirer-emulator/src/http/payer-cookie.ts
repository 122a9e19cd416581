import type { Context } from "hono";
import { getCookie, setCookie } from "hono/cookie";

/**
 * Who the bank app's payer is: the emulator's stand-in for being signed in to your bank's app on
 * your phone. The first binding a browser consents to gives it a random payer id in an HttpOnly,
 * SameSite=Lax cookie (Lax: the QR link arrives as a top-level navigation from the payment page);
 * the list of bindings shows that payer's, and only that payer may revoke them.
 */
const PAYER_COOKIE = "bank_payer";
const PAYER_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ONE_YEAR_S = 365 * 24 * 3600;

export function payerOf(c: Context): string | undefined {
  const id = getCookie(c, PAYER_COOKIE);
  return id && PAYER_ID.test(id) ? id : undefined;
}

/** The payer of this browser, made on the first consent. */
export function ensurePayer(c: Context, publicUrl: string): string {
  const known = payerOf(c);
  if (known) return known;
  const id = crypto.randomUUID();
  setCookie(c, PAYER_COOKIE, id, { httpOnly: true, sameSite: "Lax", path: "/", maxAge: ONE_YEAR_S, secure: publicUrl.startsWith("https:") });
  return id;
}
