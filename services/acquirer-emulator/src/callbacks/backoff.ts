export type RetryPolicy = { baseMs: number; capMs: number; maxAttempts: number };

/**
 * When to try again after `failedAttempts` failures (1s, 2s, 4s … capped), or null once the
 * attempts are used up.
 */
export function nextAttemptAt(policy: RetryPolicy, failedAttempts: number, now: number): number | null {
  if (failedAttempts >= policy.maxAttempts) return null;
  const delay = Math.min(policy.baseMs * 2 ** (failedAttempts - 1), policy.capMs);
  return now + delay;
}
