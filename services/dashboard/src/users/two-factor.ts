import { DomainError } from "@payaccept/contracts";
import { sha256Hex } from "@payaccept/platform";
import type { TeamRow, UserRow } from "../store/schema.ts";
import type { UserOps, UserStore } from "../store/user-store.ts";

/**
 * Two-factor sign-in with TOTP (RFC 6238): the authenticator apps' defaults (SHA-1, 6 digits, 30 s),
 * since anything else some apps silently get wrong. A code is accepted from the step before to the
 * step after the current one (a phone's clock a little off, a code typed as it rolls over), and
 * each step once: the store keeps the last step taken (UserOps.takeStep).
 */
const PERIOD_S = 30;
const ISSUER = "payaccept";
/** Recovery codes made at enrolment (and on demand): enough for a lost phone or two. */
export const RECOVERY_CODES = 10;
/** No 0/o, 1/l/i: a code copied from paper is read right. 10 of 31 letters: ~50 bits each. */
const RECOVERY_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789";

/** otpauth, loaded at the first two-factor step rather than at start (docs/performance.md, "Memory"); require() is synchronous in Bun. */
const otpauth = () => require("otpauth") as typeof import("otpauth");

const totp = (secret: string, label = "") => {
  const { Secret, TOTP } = otpauth();
  return new TOTP({ issuer: ISSUER, label, algorithm: "SHA1", digits: 6, period: PERIOD_S, secret: Secret.fromBase32(secret) });
};

/** 160 random bits (RFC 4226's recommendation), base32 as apps take it. */
export const newTotpSecret = () => new (otpauth().Secret)({ size: 20 }).base32;

/** The otpauth:// URI the enrolment QR code carries: the app names the entry "payaccept: email". */
export const enrolmentUri = (secret: string, email: string) => totp(secret, email).toString();

/** The time step a 6-digit code belongs to (the current one ± 1), or undefined when it matches none. */
export function stepOf(secret: string, code: string, now: number): number | undefined {
  const delta = totp(secret).validate({ token: code, timestamp: now, window: 1 });
  return delta === null ? undefined : Math.floor(now / 1000 / PERIOD_S) + delta;
}

/** Fresh recovery codes: what is shown once ("abcde-fghjk") and what is stored (their SHA-256). */
export function newRecoveryCodes(): { shown: string[]; hashes: string[] } {
  const shown = Array.from({ length: RECOVERY_CODES }, () => {
    const chars = Array.from(crypto.getRandomValues(new Uint32Array(10)), (n) => RECOVERY_ALPHABET[n % RECOVERY_ALPHABET.length]).join("");
    return `${chars.slice(0, 5)}-${chars.slice(5)}`;
  });
  return { shown, hashes: shown.map(recoveryHash) };
}

/** A recovery code as typed (any case, spaces or dashes anywhere) → the hash it is stored by. */
const recoveryHash = (typed: string) => sha256Hex(typed.toLowerCase().replace(/[^a-z0-9]/g, ""));

/** What proved the second factor. */
export type SecondFactor = "totp" | "recovery";

/**
 * Checks a code typed at sign-in or at a sensitive action: six digits are a TOTP code, taken once
 * (a replay within its step is refused, on any replica); anything else a recovery code, used once.
 * The caller runs this under the throttle (users.ts, throttledAttempt).
 */
export async function checkSecondFactor(store: UserOps, userId: string, typed: string, now: number): Promise<SecondFactor | undefined> {
  const code = typed.replace(/\s+/g, "");
  if (/^\d{6}$/.test(code)) {
    const factor = await store.twoFactorOf(userId);
    if (!factor?.enabledAt) return undefined;
    const step = stepOf(factor.secret, code, now);
    return step !== undefined && (await store.takeStep(userId, step)) ? "totp" : undefined;
  }
  return code.length > 0 && code.length <= 32 && (await store.useRecoveryCode(userId, recoveryHash(code), now)) ? "recovery" : undefined;
}

/**
 * Starts an enrolment: a new secret waiting for its first code (an earlier unconfirmed one is
 * replaced; an enabled factor is left alone). Returns the secret to show as a QR code.
 */
export async function startEnrolment(store: UserOps, user: UserRow, now: number): Promise<string> {
  const secret = newTotpSecret();
  await store.startTwoFactor({ userId: user.id, secret, enabledAt: null, lastStep: 0, createdAt: now });
  return secret;
}

/**
 * Ends an enrolment with the app's first code: the factor is on from now, and the recovery codes
 * to show once are returned. Undefined when the code does not match the waiting secret.
 */
export async function confirmEnrolment(store: UserStore, userId: string, code: string, now: number): Promise<string[] | undefined> {
  const waiting = await store.twoFactorOf(userId);
  if (!waiting || waiting.enabledAt !== null) return undefined;
  const step = stepOf(waiting.secret, code.replace(/\s+/g, ""), now);
  if (step === undefined) return undefined;
  const codes = newRecoveryCodes();
  const enabled = await store.tx(async (t) => {
    if (!(await t.enableTwoFactor(userId, step, now))) return false;
    await t.replaceRecoveryCodes(userId, codes.hashes);
    return true;
  });
  return enabled ? codes.shown : undefined;
}

/**
 * An operator's reset (admin CLI) for someone who lost the app and the recovery codes: the factor
 * and codes go and every session of theirs ends, in one transaction; they sign in with their
 * password and enrol again (a team that requires it sends them to). USER_NOT_FOUND for an unknown email.
 */
export async function resetSecondFactor(store: UserStore, email: string): Promise<UserRow> {
  const user = await store.userByEmail(email);
  if (!user) throw new DomainError("USER_NOT_FOUND");
  await store.tx(async (t) => {
    await t.deleteTwoFactor(user.id);
    await t.endSessionsOf(user.id);
  });
  return user;
}

/** Turns the second factor off (and its recovery codes): refused while the team requires it. */
export async function removeSecondFactor(store: UserOps, user: UserRow, team: TeamRow | null): Promise<void> {
  if (team?.requireTwoFactor) throw new DomainError("TWO_FACTOR_REQUIRED_BY_TEAM");
  await store.deleteTwoFactor(user.id);
}
