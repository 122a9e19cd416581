import { Ticker, type Logger } from "@payaccept/platform";

/**
 * Runs every `everyMs` over what has fallen due (`due`, oldest first) and handles each item
 * (`handle`, whether it did something). The times live in the store, so a restart loses no
 * countdown: the first sweep after start catches up on everything overdue. Each handling is its
 * own transaction that re-reads what it changes, so replicas sweeping together are safe.
 * Used for payments' expiries and hold deadlines, charges whose driver's lease ran out, and cards
 * past their expiry.
 */
export class DueSweeper {
  private readonly ticker: Ticker;

  constructor(
    readonly name: string,
    log: Logger,
    private readonly opts: {
      everyMs: number;
      /** The store's clock, which the due times were written on. */
      now: () => number;
      due: (now: number, limit: number) => Promise<string[]>;
      handle: (id: string, now: number) => Promise<boolean>;
      batchSize?: number;
      maxBatchesPerTick?: number;
    },
  ) {
    this.ticker = new Ticker(() => this.sweep(opts.now()), opts.everyMs, (err) => log.error({ err, sweeper: name }, "sweep failed"));
  }

  start(): void {
    this.ticker.start();
  }

  stop(): Promise<void> {
    return this.ticker.stop();
  }

  /** Handles up to batchSize × maxBatchesPerTick due items; the rest wait for the next tick. How many did something. */
  async sweep(now: number): Promise<number> {
    const batchSize = this.opts.batchSize ?? 200;
    let done = 0;
    for (let batch = 0; batch < (this.opts.maxBatchesPerTick ?? 10); batch++) {
      const ids = await this.opts.due(now, batchSize);
      for (const id of ids) if (await this.opts.handle(id, now)) done++;
      if (ids.length < batchSize) break;
    }
    return done;
  }
}
