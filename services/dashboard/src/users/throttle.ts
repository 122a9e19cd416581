import type { ThrottleRow } from "../store/schema.ts";

/**
 * How failed sign-ins lock a key (an email or a client address): the first `threshold - 1`
 * failures cost nothing; the threshold-th locks for `baseLockMs`, and each failure after that
 * (once the lock has passed) doubles the lock, up to `maxLockMs`. A key whose last failure is
 * older than `forgetAfterMs` starts again from zero.
 */
export type ThrottlePolicy = { threshold: number; baseLockMs: number; maxLockMs: number; forgetAfterMs: number };

const MINUTE = 60_000;

/** An owner mistyping a password a few times is never locked; a guesser gets ~100 tries a day. */
export const EMAIL_POLICY: ThrottlePolicy = { threshold: 5, baseLockMs: 30_000, maxLockMs: 15 * MINUTE, forgetAfterMs: 60 * MINUTE };
/**
 * Per client address (an IPv6 /64): password spraying over many emails. Higher than the email
 * threshold so that an office behind one NAT is not locked by a few people's typos.
 */
export const ADDRESS_POLICY: ThrottlePolicy = { threshold: 20, baseLockMs: MINUTE, maxLockMs: 30 * MINUTE, forgetAfterMs: 60 * MINUTE };

export const emailThrottleKey = (email: string) => `email:${email}`;
export const addressThrottleKey = (address: string) => `ip:${address}`;

/** The moment (epoch ms) until which the key is locked; 0 when it is not. */
export const lockedUntil = (row: ThrottleRow | undefined, now: number) => (row && row.lockedUntil > now ? row.lockedUntil : 0);

export function afterFailure(row: ThrottleRow | undefined, key: string, policy: ThrottlePolicy, now: number): ThrottleRow {
  const forgotten = !row || now - row.lastFailureAt > policy.forgetAfterMs;
  const failures = (forgotten ? 0 : row.failures) + 1;
  const over = failures - policy.threshold;
  const lockMs = over >= 0 ? Math.min(policy.baseLockMs * 2 ** over, policy.maxLockMs) : 0;
  return { key, failures, lastFailureAt: now, lockedUntil: lockMs > 0 ? now + lockMs : 0 };
}
