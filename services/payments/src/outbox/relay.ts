import { outsideTraces, retryDelayMs, traceIdOf, type Logger, type Backoff } from "@payaccept/platform";
import type { OutboxRepo, OutboxRow } from "../store/payments-store.ts";

/** Publishes one event and resolves once the stream has acknowledged it (or reports a duplicate). */
export type PublishEvent = (row: OutboxRow) => Promise<{ duplicate: boolean }>;

export type RelayOptions = {
  /** Delay before every publishing pass; a test hook that opens a window between commit and publish. */
  delayMs: number;
  /** Safety-net pass for rows committed by another replica or left by a failed pass. */
  sweepMs: number;
  /** Pause after a failed pass; no attempt budget: the events must go out eventually. */
  retry?: Backoff;
  batchSize?: number;
  maxBatchesPerPass?: number;
};

const RELAY_RETRY: Backoff = { baseMs: 250, capMs: 30_000 };

/**
 * The outbox relay: publishes committed events to JetStream and marks them published after their
 * PubAcks. Each round publishes the oldest unpublished event of every payment in the batch at once
 * and awaits the PubAcks together, so the relay's pace is not one round trip per event; a later
 * event of a payment (REFUNDED after SUCCESS) waits for a later round, so a payment's events reach
 * the stream in the order they were committed even when a publish fails. A failed publish is tried
 * again after a growing backoff; the events confirmed beside it are kept. A crash between publish
 * and mark republishes the row, which the stream drops as a duplicate of its Nats-Msg-Id.
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

  /** A pass is no request's work, whichever commit woke it: each row's publish continues the row's own trace. */
  private schedule(ms: number): void {
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.running = outsideTraces(() => this.pass()).finally(() => (this.running = undefined));
    }, ms);
  }

  private async pass(): Promise<void> {
    let more: boolean;
    try {
      more = await this.publishBatches();
    } catch (err) {
      // A failed publish (no PubAck) or store error: the same rows come first next time.
      this.failures++;
      const backoff = retryDelayMs(this.opts.retry ?? RELAY_RETRY, this.failures);
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

  /** Publishes up to maxBatchesPerPass rounds, stopping at the first failure; true when rows remain. */
  private async publishBatches(): Promise<boolean> {
    const batchSize = this.opts.batchSize ?? 100;
    for (let batch = 0; batch < (this.opts.maxBatchesPerPass ?? 50) && !this.stopped; batch++) {
      let round: OutboxRow[] = [];
      let acks: PromiseSettledResult<{ duplicate: boolean }>[] = [];
      const rows = await this.repo.round(batchSize, async (unpublished) => {
        round = oldestOfEachPayment(unpublished);
        acks = await Promise.allSettled(round.map((row) => this.publish(row)));
        return round.filter((_, i) => acks[i]!.status === "fulfilled").map((row) => row.seq);
      });
      round.forEach((row, i) => {
        const ack = acks[i]!;
        if (ack.status === "fulfilled") this.log.info({ requestId: row.requestId ?? undefined, traceId: traceIdOf(row.traceContext), eventId: row.eventId, paymentId: row.paymentId, status: row.status, duplicate: ack.value.duplicate }, "event published");
      });
      const failed = acks.findIndex((ack) => ack.status === "rejected");
      if (failed >= 0) {
        const cause = (acks[failed] as PromiseRejectedResult).reason;
        throw Object.assign(new Error(`publish of ${round[failed]!.eventId} failed: ${(cause as Error).message}`), { cause });
      }
      if (rows.length < batchSize && round.length === rows.length) return false;
    }
    return true;
  }
}

/** Rows in commit order, keeping only the first of each payment: its later events wait for the next round. */
function oldestOfEachPayment(rows: OutboxRow[]): OutboxRow[] {
  const seen = new Set<string>();
  return rows.filter((row) => !seen.has(row.paymentId) && seen.add(row.paymentId));
}
