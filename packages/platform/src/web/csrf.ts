import type { Context } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { hmacSha256Hex, randomToken, safeEqual } from "@payaccept/platform";

const NONCE = /^[A-Za-z0-9_-]{43}$/;

/**
 * Signed double-submit CSRF tokens. The browser holds a random nonce in an HttpOnly SameSite=Lax
 * cookie; each form carries HMAC(secret, nonce + payment id). A forged form from another site can
 * neither read the cookie nor compute the HMAC, and a token is only good for its own payment.
 */
export class Csrf {
  readonly cookieName: string;

  constructor(
    private readonly secret: string,
    private readonly secure: boolean,
  ) {
    // The __Host- prefix pins the cookie to this exact origin, which browsers allow only over https.
    this.cookieName = secure ? "__Host-pp_csrf" : "pp_csrf";
  }

  /** The token for a form on this page; sets the nonce cookie on the first visit. */
  tokenFor(c: Context, paymentId: string): string {
    let nonce = this.nonceOf(c);
    if (!nonce) {
      nonce = randomToken(32);
      setCookie(c, this.cookieName, nonce, { httpOnly: true, sameSite: "Lax", secure: this.secure, path: "/", maxAge: 24 * 3600 });
    }
    return this.sign(nonce, paymentId);
  }

  verify(c: Context, paymentId: string, token: unknown): boolean {
    const nonce = this.nonceOf(c);
    return nonce !== undefined && typeof token === "string" && safeEqual(token, this.sign(nonce, paymentId));
  }

  private nonceOf(c: Context): string | undefined {
    const v = getCookie(c, this.cookieName);
    return v && NONCE.test(v) ? v : undefined;
  }

  private sign(nonce: string, paymentId: string): string {
    return hmacSha256Hex(this.secret, `${nonce}:${paymentId}`);
  }
}
