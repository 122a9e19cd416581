/** The window a shop's attempts are judged over, in slices that age out whole. */
const WINDOW_MS = 60 * 60_000;
const SLICE_MS = 5 * 60_000;
/** A shop is failing when more than this share of its attempts that sent something failed… */
export const FAILING_RATIO = 0.5;
/** …out of at least this many in the window: a shop with one failed attempt is not yet judged. */
export const FAILING_MIN_ATTEMPTS = 5;
/** Shops followed at once; beyond it the least recently attempted is forgotten. */
const MAX_SHOPS = 10_000;

type Slice = { start: number; sent: number; failed: number };

export type FailingShop = { shopId: string; sent: number; failed: number; ratio: number };

/**
 * Which shops' webhooks fail, as this process saw its attempts over the last hour: per shop, the
 * attempts that sent something and those of them that failed (delivered, or failed and blocked;
 * an attempt that found no URL sent nothing and is not counted). What it keeps is bounded by
 * MAX_SHOPS whatever the number of shops, and what it answers is bounded by the caller's `top`,
 * so the metrics built on it never grow with the shops (a shop id as a label of every attempt's
 * counter would: one series per shop).
 */
export class ShopFailures {
  /** In order of last attempt, oldest first (a Map keeps insertion order; a shop is re-inserted on each attempt). */
  private readonly shops = new Map<string, Slice[]>();

  constructor(private readonly now: () => number = () => performance.now()) {}

  record(shopId: string, failed: boolean): void {
    const t = this.now();
    const slices = this.shops.get(shopId) ?? [];
    this.shops.delete(shopId);
    this.shops.set(shopId, slices);
    let last = slices.at(-1);
    if (!last || t - last.start >= SLICE_MS) slices.push((last = { start: t, sent: 0, failed: 0 }));
    last.sent++;
    if (failed) last.failed++;
    if (this.shops.size > MAX_SHOPS) this.shops.delete(this.shops.keys().next().value!);
  }

  /** How many shops are failing, and the `top` of them with the most failed attempts (ties: the higher ratio first). */
  failing(top: number): { count: number; worst: FailingShop[] } {
    const since = this.now() - WINDOW_MS;
    const failing: FailingShop[] = [];
    for (const [shopId, slices] of this.shops) {
      while (slices.length > 0 && slices[0]!.start + SLICE_MS <= since) slices.shift();
      if (slices.length === 0) {
        this.shops.delete(shopId);
        continue;
      }
      let sent = 0;
      let failed = 0;
      for (const s of slices) {
        sent += s.sent;
        failed += s.failed;
      }
      if (sent >= FAILING_MIN_ATTEMPTS && failed / sent > FAILING_RATIO) failing.push({ shopId, sent, failed, ratio: failed / sent });
    }
    failing.sort((a, b) => b.failed - a.failed || b.ratio - a.ratio);
    return { count: failing.length, worst: failing.slice(0, top) };
  }
}
