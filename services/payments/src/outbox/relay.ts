import type { Logger } from "@payaccept/platform";
import type { OutboxRepo, OutboxRow } from "../store/outbox-repo.ts";

/** Publishes one event and resolves once the stream has acknowledged it (or reports a duplicate). */
export type PublishEvent = (row: OutboxRow) => Promise<{ duplicate: boolean }>;

export type RelayOptions = {
  /** Delay before every publishing pass; a test hook that opens a window between commit and publish. */
  delayMs: number;
  /** Safety-net pass for rows committed by another replica or left by a failed pass. */
  sweepMs: number;
  /** Backoff after a failed pass: min(maxBackoffMs, baseBackoffMs × 2^(failures−1)). */
  baseBackoffMs?: number;
  maxBackoffMs?: number;
  batchSize?: number;
  maxBatchesPerPass?: number;
};

/**
 * The outbox relay: publishes committed events to JetStream in commit order, marks each published
 * after its PubAck, and stops the pass at the first failure so order is kept; the failed row is tried
 * again after a growing backoff. A crash between publish and mark republishes the row, which the
 * stream drops as a duplicate of its Nats-Msg-Id.
 */
export class OutboxRelay {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private sweeper: ReturnType<typeof setInterval> | undefined;
  private running: Promise<void> | undefined;
  private wokenWhileRunning = false;
  private failures = 0;
  private stopped = false;

  constructor(
    private readonly repo: OutboxRepo,
    private readonly publish: PublishEvent,
    private readonly log: Logger,
    private readonly opts: RelayOptions,
  ) {}

  start(): void {
    this.sweeper = setInterval(() => this.wake(), this.opts.sweepMs);
    this.wake();
  }

  /** Called after every commit that wrote an event. During a backoff it waits for the backoff. */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.wokenWhileRunning = true;
      return;
    }
    if (this.timer) return;
    this.schedule(this.opts.delayMs);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.sweeper);
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(ms: number): void {
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.running = this.pass().finally(() => (this.running = undefined));
    }, ms);
  }

  private async pass(): Promise<void> {
    let more: boolean;
    try {
      more = await this.publishBatches();
    } catch (err) {
      // A failed publish (no PubAck) or store error: the same rows come first next time.
      this.failures++;
      const backoff = Math.min(this.opts.maxBackoffMs ?? 30_000, (this.opts.baseBackoffMs ?? 250) * 2 ** (this.failures - 1));
      this.log.warn({ err, failures: this.failures, retryInMs: backoff }, "outbox relay pass failed");
      if (!this.stopped) this.schedule(backoff);
      return;
    }
    this.failures = 0;
    if ((more || this.wokenWhileRunning) && !this.stopped) {
      this.wokenWhileRunning = false;
      this.schedule(more ? 0 : this.opts.delayMs);
    }
  }

  /** Publishes up to maxBatchesPerPass batches, stopping at the first failure; true when rows remain. */
  private async publishBatches(): Promise<boolean> {
    const batchSize = this.opts.batchSize ?? 100;
    for (let batch = 0; batch < (this.opts.maxBatchesPerPass ?? 50) && !this.stopped; batch++) {
      const rows = this.repo.unpublished(batchSize);
      for (const row of rows) {
        const ack = await this.publish(row).catch((err) => {
          throw Object.assign(new Error(`publish of ${row.eventId} failed: ${(err as Error).message}`), { cause: err });
        });
        this.repo.markPublished(row.seq, Date.now());
        this.log.info({ eventId: row.eventId, paymentId: row.paymentId, status: row.status, duplicate: ack.duplicate }, "event published");
      }
      if (rows.length < batchSize) return false;
    }
    return true;
  }
}
