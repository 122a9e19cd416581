import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { randomToken, sha256Hex } from "@payaccept/platform";
import type { SessionWithUser, UserStore } from "../store/user-store.ts";

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/**
 * Sign-in sessions: a random token in an HttpOnly SameSite=Lax cookie (Secure and __Host- over
 * https); the store keeps only its SHA-256, so a copy of the database opens no session. Sessions
 * end at sign-out or after a fixed lifetime from sign-in, never extended.
 */
export class Sessions {
  readonly cookieName: string;

  constructor(
    private readonly store: UserStore,
    private readonly opts: { ttlMs: number; secure: boolean; now: () => number },
  ) {
    this.cookieName = opts.secure ? "__Host-dash_session" : "dash_session";
  }

  /** A fresh session for the user (never one the browser brought along: no fixation). */
  async start(c: Context, userId: string): Promise<void> {
    const token = randomToken(32);
    const now = this.opts.now();
    await this.store.insertSession({ idHash: sha256Hex(token), userId, createdAt: now, expiresAt: now + this.opts.ttlMs });
    setCookie(c, this.cookieName, token, {
      httpOnly: true,
      sameSite: "Lax",
      secure: this.opts.secure,
      path: "/",
      maxAge: Math.floor(this.opts.ttlMs / 1000),
    });
  }

  /** The session the cookie opens, with the cookie's token (what one-shot messages are sealed with). */
  async current(c: Context): Promise<(SessionWithUser & { token: string }) | undefined> {
    const token = getCookie(c, this.cookieName);
    if (!token || !TOKEN.test(token)) return undefined;
    const found = await this.store.sessionWithUser(sha256Hex(token));
    return found && found.session.expiresAt > this.opts.now() ? { ...found, token } : undefined;
  }

  async end(c: Context, session: SessionWithUser | undefined): Promise<void> {
    if (session) await this.store.deleteSession(session.session.idHash);
    deleteCookie(c, this.cookieName, { path: "/", secure: this.opts.secure });
  }
}
