import type { ThrottleRow } from "../store/schema.ts";
import type { ThrottleChange } from "../store/user-store.ts";

/**
 * How failed sign-ins lock a key (an email or a client address): the first `threshold - 1`
 * failures cost nothing; the threshold-th locks for `baseLockMs`, and each failure after that
 * (once the lock has passed) doubles the lock, up to `maxLockMs`. A key whose last failure is
 * older than `forgetAfterMs` starts again from zero.
 */
export type ThrottlePolicy = { threshold: number; baseLockMs: number; maxLockMs: number; forgetAfterMs: number };

const MINUTE = 60_000;

/**
 * Per email (passwords) and per user's second factor (codes): an owner mistyping a few times is
 * never locked; a guesser gets ~100 tries a day.
 */
export const EMAIL_POLICY: ThrottlePolicy = { threshold: 5, baseLockMs: 30_000, maxLockMs: 15 * MINUTE, forgetAfterMs: 60 * MINUTE };
/**
 * Per client address (an IPv6 /64): password spraying over many emails. Higher than the email
 * threshold so that an office behind one NAT is not locked by a few people's typos.
 */
export const ADDRESS_POLICY: ThrottlePolicy = { threshold: 20, baseLockMs: MINUTE, maxLockMs: 30 * MINUTE, forgetAfterMs: 60 * MINUTE };

export const emailThrottleKey = (email: string) => `email:${email}`;
export const addressThrottleKey = (address: string) => `ip:${address}`;
/** A user's second factor: codes at sign-in, at enrolment and at sensitive actions count together. */
export const codeThrottleKey = (userId: string) => `code:${userId}`;

/** The moment (epoch ms) until which the key is locked; 0 when it is not. */
export const lockedUntil = (row: ThrottleRow | undefined, now: number) => (row && row.lockedUntil > now ? row.lockedUntil : 0);

export function afterFailure(row: ThrottleRow | undefined, key: string, policy: ThrottlePolicy, now: number): ThrottleRow {
  const forgotten = !row || now - row.lastFailureAt > policy.forgetAfterMs;
  const failures = (forgotten ? 0 : row.failures) + 1;
  const over = failures - policy.threshold;
  const lockMs = over >= 0 ? Math.min(policy.baseLockMs * 2 ** over, policy.maxLockMs) : 0;
  return { key, failures, lastFailureAt: now, lockedUntil: lockMs > 0 ? now + lockMs : 0 };
}

/** A started attempt: refused while any key is locked, else counted as a failure on every key at once. */
export type Claim = { kind: "locked"; until: number } | { kind: "counted"; before: (ThrottleRow | undefined)[]; after: ThrottleRow[] };

/**
 * The attempt is counted when it starts, in the same unit as the check (UserStore.updateThrottles),
 * not after the password is verified: parallel guesses on several replicas each see the ones
 * before them, so no burst passes the check before its failures are counted.
 */
export function claimAttempt(rows: (ThrottleRow | undefined)[], keys: [string, ThrottlePolicy][], now: number): ThrottleChange<Claim> {
  const until = Math.max(...rows.map((row) => lockedUntil(row, now)));
  if (until > 0) return { save: [], clear: [], result: { kind: "locked", until } };
  const after = keys.map(([key, policy], i) => afterFailure(rows[i], key, policy, now));
  return { save: after, clear: [], result: { kind: "counted", before: rows, after } };
}

/**
 * The count of an attempt that turned out right is given back on a key: a row untouched since the
 * claim returns to what it was before it; after others' failures only its one count comes off
 * (their lock stands).
 */
export function givenBack(key: string, now: ThrottleRow | undefined, before: ThrottleRow | undefined, claimedAt: number): ThrottleChange<void> {
  if (!now) return { save: [], clear: [], result: undefined };
  if (now.lastFailureAt !== claimedAt) return { save: [{ ...now, failures: Math.max(0, now.failures - 1) }], clear: [], result: undefined };
  return before ? { save: [before], clear: [], result: undefined } : { save: [], clear: [key], result: undefined };
}
