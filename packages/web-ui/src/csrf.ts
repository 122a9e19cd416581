import type { Context } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { hmacSha256Hex, randomToken, safeEqual } from "@payaccept/platform";

const NONCE = /^[A-Za-z0-9_-]{43}$/;

/**
 * Signed double-submit CSRF tokens. The browser holds a random nonce in an HttpOnly SameSite=Lax
 * cookie; each form carries HMAC(secret, nonce + scope). A forged form from another site can
 * neither read the cookie nor compute the HMAC, and a token is only good for its own scope (a
 * payment on the payment page, a session in the dashboard).
 */
export class Csrf {
  readonly cookieName: string;
  private readonly secret: string;
  private readonly secure: boolean;

  constructor(opts: { secret: string; secure: boolean; cookie: string }) {
    this.secret = opts.secret;
    this.secure = opts.secure;
    // The __Host- prefix pins the cookie to this exact origin, which browsers allow only over https.
    this.cookieName = opts.secure ? `__Host-${opts.cookie}` : opts.cookie;
  }

  /** The token for a form on this page; sets the nonce cookie on the first visit. */
  tokenFor(c: Context, scope: string): string {
    let nonce = this.nonceOf(c);
    if (!nonce) {
      nonce = randomToken(32);
      setCookie(c, this.cookieName, nonce, { httpOnly: true, sameSite: "Lax", secure: this.secure, path: "/", maxAge: 24 * 3600 });
    }
    return this.sign(nonce, scope);
  }

  verify(c: Context, scope: string, token: unknown): boolean {
    const nonce = this.nonceOf(c);
    return nonce !== undefined && typeof token === "string" && safeEqual(token, this.sign(nonce, scope));
  }

  private nonceOf(c: Context): string | undefined {
    const v = getCookie(c, this.cookieName);
    return v && NONCE.test(v) ? v : undefined;
  }

  private sign(nonce: string, scope: string): string {
    return hmacSha256Hex(this.secret, `${nonce}:${scope}`);
  }
}
