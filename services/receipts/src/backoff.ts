export type RetryPolicy = { baseMs: number; capMs: number; maxAttempts: number };

/**
 * When to try again after `failedAttempts` failures: base × 2ⁿ⁻¹ capped, of which a random half is
 * kept (equal jitter, so receipts that failed together do not retry together), or null once the
 * attempts are used up. Kept to this one function so a shared platform policy can replace it.
 */
export function nextAttemptAt(policy: RetryPolicy, failedAttempts: number, now: number, random: () => number = Math.random): number | null {
  if (failedAttempts >= policy.maxAttempts) return null;
  const ceiling = Math.min(policy.baseMs * 2 ** (failedAttempts - 1), policy.capMs);
  return now + Math.round(ceiling / 2 + (random() * ceiling) / 2);
}
