/**
 * The one retry policy of every retry loop (docs/operations.md, "Retries"): exponential backoff
 * with full jitter, a cap, and an attempt budget. Full jitter (a uniform pause between 0 and the
 * exponential ceiling) spreads the retries of many clients that failed together (every service
 * after a NATS outage) over the whole window instead of sending them in the same instant.
 */
export type Backoff = {
  /** Ceiling of the pause after the first failure; it doubles with every further failure. */
  baseMs: number;
  /** The ceiling never grows past this. */
  capMs: number;
};
export type RetryPolicy = Backoff & {
  /** Attempts in all, the first included; unlimited when absent. */
  maxAttempts?: number;
};

/** A number in [0, 1), as Math.random; injectable so tests can pin the jitter. */
export type Random = () => number;

/**
 * The pause after `failures` failed attempts (1 after the first), or null when the budget is
 * spent: uniform in [0, min(capMs, baseMs × 2^(failures − 1))).
 */
export function retryDelayMs(policy: Backoff & { maxAttempts?: undefined }, failures: number, random?: Random): number;
export function retryDelayMs(policy: RetryPolicy, failures: number, random?: Random): number | null;
export function retryDelayMs(policy: RetryPolicy, failures: number, random: Random = Math.random): number | null {
  if (failures >= (policy.maxAttempts ?? Infinity)) return null;
  const ceiling = Math.min(policy.capMs, policy.baseMs * 2 ** Math.max(0, failures - 1));
  return Math.floor(random() * ceiling);
}

/**
 * A fixed pause made a little later at random, never earlier: for schedules that are promised
 * (the spec's webhook pauses), where a retry must not come before its time but a crowd of them
 * must not come at the same instant either.
 */
export function spreadLater(delayMs: number, fraction: number, random: Random = Math.random): number {
  return delayMs + Math.floor(random() * delayMs * fraction);
}

export type RetryOptions = {
  /** Called after each failure that will be retried, with the pause that follows. */
  onRetry?: (err: unknown, failures: number, delayMs: number) => void;
  /** Checked before each pause and each attempt: true ends the loop by throwing the last error. */
  stopped?: () => boolean;
  random?: Random;
};

/** Runs `fn` until it resolves, pausing by the policy between failures; throws the last error once the budget is spent. */
export async function retrying<T>(policy: RetryPolicy, fn: (attempt: number) => Promise<T>, opts: RetryOptions = {}): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (err) {
      const delayMs = opts.stopped?.() ? null : retryDelayMs(policy, attempt, opts.random);
      if (delayMs === null) throw err;
      opts.onRetry?.(err, attempt, delayMs);
      await Bun.sleep(delayMs);
      if (opts.stopped?.()) throw err;
    }
  }
}
