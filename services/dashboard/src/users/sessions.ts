import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { randomToken, sha256Hex } from "@payaccept/platform";
import type { SignInChallengeRow } from "../store/schema.ts";
import type { SessionWithUser, UserStore } from "../store/user-store.ts";

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/**
 * A random token in an HttpOnly SameSite=Lax cookie (Secure and __Host- over https), whose SHA-256
 * is what the store keeps: a copy of the database opens nothing.
 */
class TokenCookie {
  readonly name: string;

  constructor(
    name: string,
    private readonly opts: { secure: boolean; ttlMs: number },
  ) {
    this.name = opts.secure ? `__Host-${name}` : name;
  }

  /** A new token in the cookie; returns it with its hash. */
  issue(c: Context): { token: string; idHash: string } {
    const token = randomToken(32);
    setCookie(c, this.name, token, { httpOnly: true, sameSite: "Lax", secure: this.opts.secure, path: "/", maxAge: Math.floor(this.opts.ttlMs / 1000) });
    return { token, idHash: sha256Hex(token) };
  }

  read(c: Context): { token: string; idHash: string } | undefined {
    const token = getCookie(c, this.name);
    return token && TOKEN.test(token) ? { token, idHash: sha256Hex(token) } : undefined;
  }

  clear(c: Context): void {
    deleteCookie(c, this.name, { path: "/", secure: this.opts.secure });
  }
}

/**
 * Sign-in sessions (cookie dash_session). Sessions end at sign-out, when the person is removed
 * from their team or their role changes, or after a fixed lifetime from sign-in, never extended.
 */
export class Sessions {
  private readonly cookie: TokenCookie;

  constructor(
    private readonly store: UserStore,
    private readonly opts: { ttlMs: number; secure: boolean; now: () => number },
  ) {
    this.cookie = new TokenCookie("dash_session", { secure: opts.secure, ttlMs: opts.ttlMs });
  }

  get cookieName(): string {
    return this.cookie.name;
  }

  /**
   * A fresh session for the user (never one the browser brought along: no fixation), proven just
   * now; returns its stored id and token (what a one-shot message for its first page is sealed with).
   */
  async start(c: Context, userId: string): Promise<{ sessionId: string; token: string }> {
    const { idHash, token } = this.cookie.issue(c);
    const now = this.opts.now();
    await this.store.insertSession({ idHash, userId, createdAt: now, expiresAt: now + this.opts.ttlMs, freshAt: now });
    return { sessionId: idHash, token };
  }

  /** The session the cookie opens, with the cookie's token (what one-shot messages are sealed with). */
  async current(c: Context): Promise<(SessionWithUser & { token: string }) | undefined> {
    const cookie = this.cookie.read(c);
    const found = cookie && (await this.store.sessionWithUser(cookie.idHash));
    return found && found.session.expiresAt > this.opts.now() ? { ...found, token: cookie.token } : undefined;
  }

  async end(c: Context, session: SessionWithUser | undefined): Promise<void> {
    if (session) await this.store.deleteSession(session.session.idHash);
    this.cookie.clear(c);
  }
}

/** How long a sign-in may wait between the password and the code. */
const CHALLENGE_TTL_MS = 5 * 60_000;

/**
 * Sign-ins halfway (cookie dash_2fa): the password was right and the user has a second factor.
 * Only the code form reads it; a session is made once the code is right.
 */
export class SignInChallenges {
  private readonly cookie: TokenCookie;

  constructor(
    private readonly store: UserStore,
    private readonly opts: { secure: boolean; now: () => number },
  ) {
    this.cookie = new TokenCookie("dash_2fa", { secure: opts.secure, ttlMs: CHALLENGE_TTL_MS });
  }

  async start(c: Context, userId: string): Promise<void> {
    const { idHash } = this.cookie.issue(c);
    const now = this.opts.now();
    await this.store.insertChallenge({ idHash, userId, expiresAt: now + CHALLENGE_TTL_MS }, now);
  }

  async current(c: Context): Promise<SignInChallengeRow | undefined> {
    const cookie = this.cookie.read(c);
    const found = cookie && (await this.store.challenge(cookie.idHash));
    return found && found.expiresAt > this.opts.now() ? found : undefined;
  }

  async end(c: Context, challenge: SignInChallengeRow): Promise<void> {
    await this.store.deleteChallenge(challenge.idHash);
    this.cookie.clear(c);
  }
}
