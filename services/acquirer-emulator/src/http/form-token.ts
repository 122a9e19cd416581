import { hmacSha256Hex, safeEqual } from "@payaccept/platform";

/**
 * CSRF protection of the emulator's own forms. The payment pages have no login: the unguessable
 * session id is the buyer's only authority (the bank app's payer cookie only says whose bindings
 * to list, payer-cookie.ts). A form therefore carries an HMAC of
 * (purpose, session id) that only a page the emulator rendered can hold, and the POST handlers also
 * refuse any Origin other than the emulator's own (see origins.ts). A revoke button in the bank
 * app's list of bindings signs the binding's id instead of a session's.
 */
export type FormPurpose = "sbp" | "card" | "3ds" | "revoke";

export class FormTokens {
  constructor(private readonly key: string) {}

  issue(purpose: FormPurpose, id: string): string {
    return hmacSha256Hex(this.key, `${purpose}:${id}`);
  }

  verify(purpose: FormPurpose, id: string, token: unknown): boolean {
    return typeof token === "string" && safeEqual(token, this.issue(purpose, id));
  }
}

/** Derives the form key from the callback secret so the emulator needs no extra variable. */
export const formKeyFrom = (callbackSecret: string) => hmacSha256Hex(callbackSecret, "acquirer-emulator/forms");
