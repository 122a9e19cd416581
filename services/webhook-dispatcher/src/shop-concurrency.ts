export type ShopConcurrencyOptions = {
  /** Attempts in flight to one shop at once. */
  perShop: number;
  /** Duration assumed for a shop's attempts before one has finished. */
  initialEstimateMs: number;
  minDeferralMs: number;
  maxDeferralMs: number;
  /** A delivery of a saturated shop waits here for a slot while the shop's queue here would be through within this; else it is deferred. */
  maxWaitMs?: number;
  /** Deliveries waiting here for a slot, all shops together (each holds a slot of the consumer loop). */
  maxWaiters?: number;
  now: () => number;
  random?: () => number;
};

type ShopState = {
  inFlight: number;
  /** When each attempt in flight began. */
  started: number[];
  /** The mean attempt time (decaying): the shop's pace, for booking deferrals. */
  averageMs: number | null;
  /** The last RECENT_ATTEMPTS attempt times, the oldest overwritten first: their median is the next attempt's expected time. */
  recentMs: number[];
  attemptsSeen: number;
  backlogEndsAt: number;
  lastUsedAt: number;
  /** Deliveries waiting here for the shop's next free slot, first come first served. */
  waiters: ((release: () => void) => void)[];
};

/**
 * How many of a shop's last attempt times a waiter's estimate is the median of: a spike of up to
 * half as many slow attempts (a pause of the endpoint or of this host) moves it not at all, and is
 * forgotten as soon as as many quick ones have followed.
 */
const RECENT_ATTEMPTS = 32;

/** A shop idle this long is forgotten, so the map only holds shops with recent traffic. */
const FORGET_IDLE_AFTER_MS = 15 * 60_000;
/** The map is swept for idle shops once per this many acquisitions. */
const SWEEP_EVERY = 1024;

/**
 * Caps the attempts in flight to each shop, so that a shop whose endpoint hangs holds at most
 * `perShop` of the process's slots and every other shop keeps being served.
 *
 * A delivery that finds its shop saturated waits here for the shop's next free slot when the
 * shop's queue here would be through within `maxWaitMs` (its attempts are quick: a burst of a
 * healthy shop is sent at the pace its cap allows, never sent back to the stream), as long as at
 * most `maxWaiters` deliveries wait here. Otherwise (a slow or hanging endpoint: the estimate is
 * the longer of its typical attempt, the median of its last ones, and the age of its oldest
 * attempt in flight) it is deferred back to JetStream. Its pause is its place in a virtual queue: each deferral books the next slot
 * the shop is expected to free (average attempt time / perShop after the last booked one), so a
 * backlog of thousands comes back spread out over time instead of all at once, and deferrals stay
 * cheap however long one shop's backlog grows.
 */
export class ShopConcurrency {
  private readonly shops = new Map<string, ShopState>();
  private readonly random: () => number;
  private acquisitions = 0;
  private waiting = 0;

  constructor(private readonly opts: ShopConcurrencyOptions) {
    this.random = opts.random ?? Math.random;
  }

  /** A release function when the shop has a free slot, else null. */
  tryAcquire(shopId: string): (() => void) | null {
    if (++this.acquisitions % SWEEP_EVERY === 0) this.forgetIdle();
    const state = this.state(shopId);
    if (state.inFlight >= this.opts.perShop) return null;
    state.inFlight++;
    return this.slot(state);
  }

  /**
   * A slot of the shop: its release function at once when one is free; a promise of it when the
   * delivery may wait here (above); null when it is to be deferred (deferralMs).
   */
  acquire(shopId: string): (() => void) | Promise<() => void> | null {
    const now = this.tryAcquire(shopId);
    if (now) return now;
    const state = this.state(shopId);
    const { perShop, initialEstimateMs, maxWaitMs = 0, maxWaiters = 0 } = this.opts;
    const t = this.opts.now();
    const slotMs = Math.max(typicalMs(state) ?? initialEstimateMs, ...state.started.map((s) => t - s));
    const expectedWaitMs = Math.ceil((state.waiters.length + 1) / perShop) * slotMs;
    if (this.waiting >= maxWaiters || expectedWaitMs > maxWaitMs) return null;
    this.waiting++;
    return new Promise((resolve) => state.waiters.push(resolve));
  }

  /** How long a delivery of a saturated shop should wait before it is offered again. */
  deferralMs(shopId: string): number {
    const { minDeferralMs, maxDeferralMs, perShop, initialEstimateMs, now } = this.opts;
    const state = this.state(shopId);
    const t = now();
    const slotMs = (state.averageMs ?? initialEstimateMs) / perShop;
    state.backlogEndsAt = Math.min(Math.max(state.backlogEndsAt, t) + slotMs, t + maxDeferralMs);
    // ±10 % so that deferrals booked in the same millisecond do not all come back together.
    const jittered = Math.round((state.backlogEndsAt - t) * (0.9 + 0.2 * this.random()));
    return Math.min(Math.max(jittered, minDeferralMs), maxDeferralMs);
  }

  inFlight(shopId: string): number {
    return this.shops.get(shopId)?.inFlight ?? 0;
  }

  /** One attempt's slot, taken now; its release hands it to the shop's next waiter, if any. */
  private slot(state: ShopState): () => void {
    const started = this.opts.now();
    state.started.push(started);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      state.started.splice(state.started.indexOf(started), 1);
      const ms = this.opts.now() - started;
      state.averageMs = state.averageMs === null ? ms : state.averageMs * 0.8 + ms * 0.2;
      state.recentMs[state.attemptsSeen++ % RECENT_ATTEMPTS] = ms;
      const next = state.waiters.shift();
      if (!next) {
        state.inFlight--;
        return;
      }
      this.waiting--;
      next(this.slot(state));
    };
  }

  private state(shopId: string): ShopState {
    let state = this.shops.get(shopId);
    if (!state) {
      state = { inFlight: 0, started: [], averageMs: null, recentMs: [], attemptsSeen: 0, backlogEndsAt: 0, lastUsedAt: 0, waiters: [] };
      this.shops.set(shopId, state);
    }
    state.lastUsedAt = this.opts.now();
    return state;
  }

  private forgetIdle(): void {
    const cutoff = this.opts.now() - FORGET_IDLE_AFTER_MS;
    for (const [shopId, state] of this.shops) {
      if (state.inFlight === 0 && state.waiters.length === 0 && state.lastUsedAt < cutoff && state.backlogEndsAt < cutoff) this.shops.delete(shopId);
    }
  }
}

/**
 * The median of the shop's last attempt times (the upper one of an even count), null before one
 * has finished. A waiter's turn is judged by it, not by the mean, which a spike that is over
 * would keep high for several attempts more: the spike would defer a healthy shop's deliveries
 * while its attempts in flight were quick again. An endpoint that slows down for good moves it
 * after half the window, and at once through its attempts in flight growing old.
 */
function typicalMs(state: ShopState): number | null {
  if (state.recentMs.length === 0) return null;
  const sorted = state.recentMs.toSorted((a, b) => a - b);
  return sorted[sorted.length >> 1]!;
}
