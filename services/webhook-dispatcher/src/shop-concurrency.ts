export type ShopConcurrencyOptions = {
  /** Attempts in flight to one shop at once. */
  perShop: number;
  /** Duration assumed for a shop's attempts before one has finished. */
  initialEstimateMs: number;
  minDeferralMs: number;
  maxDeferralMs: number;
  now: () => number;
  random?: () => number;
};

type ShopState = { inFlight: number; averageMs: number | null; backlogEndsAt: number; lastUsedAt: number };

/** A shop idle this long is forgotten, so the map only holds shops with recent traffic. */
const FORGET_IDLE_AFTER_MS = 15 * 60_000;
/** The map is swept for idle shops once per this many acquisitions. */
const SWEEP_EVERY = 1024;

/**
 * Caps the attempts in flight to each shop, so that a shop whose endpoint hangs holds at most
 * `perShop` of the process's slots and every other shop keeps being served.
 *
 * A delivery that finds its shop saturated is deferred back to JetStream (not held here, where a
 * crash would lose track of it). Its pause is its place in a virtual queue: each deferral books
 * the next slot the shop is expected to free (average attempt time / perShop after the last booked
 * one), so a backlog of thousands comes back spread out over time instead of all at once, and
 * deferrals stay cheap however long one shop's backlog grows.
 */
export class ShopConcurrency {
  private readonly shops = new Map<string, ShopState>();
  private readonly random: () => number;
  private acquisitions = 0;

  constructor(private readonly opts: ShopConcurrencyOptions) {
    this.random = opts.random ?? Math.random;
  }

  /** A release function when the shop has a free slot, else null. */
  tryAcquire(shopId: string): (() => void) | null {
    if (++this.acquisitions % SWEEP_EVERY === 0) this.forgetIdle();
    const state = this.state(shopId);
    if (state.inFlight >= this.opts.perShop) return null;
    state.inFlight++;
    const started = this.opts.now();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      state.inFlight--;
      const ms = this.opts.now() - started;
      state.averageMs = state.averageMs === null ? ms : state.averageMs * 0.8 + ms * 0.2;
    };
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

  private state(shopId: string): ShopState {
    let state = this.shops.get(shopId);
    if (!state) {
      state = { inFlight: 0, averageMs: null, backlogEndsAt: 0, lastUsedAt: 0 };
      this.shops.set(shopId, state);
    }
    state.lastUsedAt = this.opts.now();
    return state;
  }

  private forgetIdle(): void {
    const cutoff = this.opts.now() - FORGET_IDLE_AFTER_MS;
    for (const [shopId, state] of this.shops) {
      if (state.inFlight === 0 && state.lastUsedAt < cutoff && state.backlogEndsAt < cutoff) this.shops.delete(shopId);
    }
  }
}
