import { Ticker, type Logger } from "@payaccept/platform";
import type { PaymentsRepo } from "../store/payments-store.ts";

/**
 * Expires CREATED and PENDING payments whose expires_at has passed. The deadline lives in the store,
 * so a restart loses no countdown: the first sweep after start catches up on everything overdue.
 * Safe with several replicas: each expiry is a transition in its own transaction that re-reads the
 * status, so a payment paid a moment before its deadline stays paid.
 */
export class ExpirySweeper {
  private readonly ticker: Ticker;

  constructor(
    private readonly repo: PaymentsRepo,
    log: Logger,
    /** `now`: the store's clock, which expires_at was written on. */
    private readonly opts: { everyMs: number; now: () => number; batchSize?: number; maxBatchesPerTick?: number },
  ) {
    this.ticker = new Ticker(() => this.sweep(opts.now()), opts.everyMs, (err) => log.error({ err }, "expiry sweep failed"));
  }

  start(): void {
    this.ticker.start();
  }

  stop(): Promise<void> {
    return this.ticker.stop();
  }

  /** Expires up to batchSize × maxBatchesPerTick payments; the rest wait for the next tick. */
  async sweep(now: number): Promise<number> {
    const batchSize = this.opts.batchSize ?? 200;
    let expired = 0;
    for (let batch = 0; batch < (this.opts.maxBatchesPerTick ?? 10); batch++) {
      const ids = await this.repo.dueForExpiry(now, batchSize);
      for (const id of ids) if ((await this.repo.transition(id, "expire", now))?.decision.kind === "move") expired++;
      if (ids.length < batchSize) break;
    }
    return expired;
  }
}
