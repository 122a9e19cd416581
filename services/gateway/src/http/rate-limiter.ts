export type RateDecision = {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the current window ends. */
  resetSeconds: number;
  /** When refused: seconds until one more request would be allowed. */
  retryAfterSeconds: number;
};

type Entry = { start: number; prev: number; cur: number };

/**
 * Sliding-window counter: each key keeps the counts of its current and previous window, and the
 * previous one is weighted by how much of it still overlaps the sliding minute. That smooths the
 * burst a fixed window allows at its boundary, with two integers per key. A key's windows start
 * at its first request. Memory is bounded: keys idle for two windows are swept once per window,
 * and beyond maxKeys the longest-tracked key is dropped (an attacker churning keys can only make
 * us forget counts, never refuse a legitimate client).
 *
 * With `replicas` > 1 the limit is the total over that many gateway replicas behind an even
 * balancer: this one enforces its share ⌈limit / replicas⌉ and reports the limit and the remaining
 * count as totals (its own remaining × replicas), which is what the client sees over all of them.
 */
export class SlidingWindowLimiter {
  private readonly entries = new Map<string, Entry>();
  private lastSweep: number;
  private readonly share: number;
  private readonly replicas: number;

  constructor(
    readonly limit: number,
    private readonly opts: { windowMs: number; maxKeys: number; replicas?: number; now?: () => number },
  ) {
    this.lastSweep = this.now();
    this.replicas = opts.replicas ?? 1;
    this.share = replicaShare(limit, this.replicas);
  }

  get size(): number {
    return this.entries.size;
  }

  hit(key: string): RateDecision {
    const now = this.now();
    const w = this.opts.windowMs;
    this.sweep(now);
    let e = this.entries.get(key);
    if (!e) {
      if (this.entries.size >= this.opts.maxKeys) this.entries.delete(this.entries.keys().next().value!);
      e = { start: now, prev: 0, cur: 0 };
      this.entries.set(key, e);
    } else if (now - e.start >= 2 * w) {
      Object.assign(e, { start: now, prev: 0, cur: 0 });
    } else if (now - e.start >= w) {
      Object.assign(e, { start: e.start + w, prev: e.cur, cur: 0 });
    }
    const elapsed = now - e.start;
    const weightedPrev = e.prev * (1 - elapsed / w);
    const allowed = weightedPrev + e.cur + 1 <= this.share;
    if (allowed) e.cur++;
    return {
      allowed,
      limit: this.limit,
      remaining: Math.min(this.limit, Math.max(0, Math.floor((this.share - weightedPrev - e.cur) * this.replicas))),
      resetSeconds: Math.ceil((w - elapsed) / 1000),
      retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil(this.waitMs(e, elapsed) / 1000)),
    };
  }

  /** How long until prev·(1 − t/w) + cur + 1 ≤ limit, t counted from the window start. */
  private waitMs(e: Entry, elapsed: number): number {
    const w = this.opts.windowMs;
    const room = this.share - 1 - e.cur;
    if (room >= 0 && e.prev > 0) return w * (1 - room / e.prev) - elapsed;
    // The current window alone is full: wait for it to become the (decaying) previous one.
    const nextRoom = this.share - 1;
    return w - elapsed + (e.cur > nextRoom ? w * (1 - nextRoom / e.cur) : 0);
  }

  private sweep(now: number): void {
    const w = this.opts.windowMs;
    if (now - this.lastSweep < w) return;
    this.lastSweep = now;
    for (const [key, e] of this.entries) if (now - e.start >= 2 * w) this.entries.delete(key);
  }

  /** The monotonic clock: windows are this process's own, and a step of the wall clock must not stretch or cut one. */
  private now(): number {
    return this.opts.now ? this.opts.now() : performance.now();
  }
}

/** What one of `replicas` gateways enforces of a total limit: rounded up, so that an even balancer never refuses a client below the limit. */
export function replicaShare(limit: number, replicas: number): number {
  return Math.ceil(limit / replicas);
}

/** How far N shares overshoot the limit at most; beyond this the configuration is refused. */
export const MAX_REPLICA_OVERSHOOT = 0.1;

/** Whether N replicas' shares stay within MAX_REPLICA_OVERSHOOT of the limit. */
export function sharesFit(limit: number, replicas: number): boolean {
  return replicaShare(limit, replicas) * replicas <= limit * (1 + MAX_REPLICA_OVERSHOOT);
}
