import { hmacSha256Hex, safeEqual } from "@payaccept/platform";

/**
 * CSRF protection of the emulator's own forms. The bank pages have no login and no cookie: the
 * unguessable session id is the buyer's only authority. A form therefore carries an HMAC of
 * (purpose, session id) that only a page the emulator rendered can hold, and the POST handlers also
 * refuse any Origin other than the emulator's own (see origins.ts).
 */
export type FormPurpose = "sbp" | "card" | "3ds";

export class FormTokens {
  constructor(private readonly key: string) {}

  issue(purpose: FormPurpose, sessionId: string): string {
    return hmacSha256Hex(this.key, `${purpose}:${sessionId}`);
  }

  verify(purpose: FormPurpose, sessionId: string, token: unknown): boolean {
    return typeof token === "string" && safeEqual(token, this.issue(purpose, sessionId));
  }
}

/** Derives the form key from the callback secret so the emulator needs no extra variable. */
export const formKeyFrom = (callbackSecret: string) => hmacSha256Hex(callbackSecret, "acquirer-emulator/forms");
