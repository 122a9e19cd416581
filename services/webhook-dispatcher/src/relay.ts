import { outsideTraces, type Logger, type TraceCarrier } from "@payaccept/platform";
import type { DispatchCommand } from "./bus/streams.ts";
import type { DeliveryStore } from "./store/delivery-store.ts";

const BATCH = 256;
/** One drain publishes at most this many batches; the next tick goes on from there. */
const MAX_BATCHES = 400;
/** Kicks that arrive during a drain make at most this many more drains. */
const MAX_REPEATS = 100;

/**
 * The outbox of attempt series: a new delivery, a resend or a replay is first committed to the
 * store with a series number above `queued_series`; this relay publishes the series' dispatch
 * message and only then marks it queued. A crash or a NATS outage in between leaves the row to
 * the next drain (every tick, and at start), and the message id makes a second publish a no-op.
 * Each message continues the trace of its delivery's event (the row's trace context).
 */
export function createSeriesRelay(deps: { store: DeliveryStore; publish: (cmd: DispatchCommand, trace: TraceCarrier | null) => Promise<void>; log: Logger }) {
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;

  async function drain(): Promise<void> {
    for (let batch = 0; batch < MAX_BATCHES && !stopped; batch++) {
      const rows = await deps.store.unqueued(BATCH);
      if (rows.length === 0) return;
      // Published together, their PubAcks awaited together, and the confirmed ones marked queued
      // in one transaction; a failed one stays unqueued for the next drain.
      const results = await Promise.allSettled(rows.map((row) => deps.publish({ deliveryId: row.id, series: row.series }, row.traceContext)));
      await deps.store.markQueuedMany(rows.filter((_, i) => results[i]!.status === "fulfilled"));
      const failed = results.find((r) => r.status === "rejected");
      if (failed) throw failed.reason;
    }
  }

  /** Publishes every unqueued series; concurrent kicks share one drain and cause one more. */
  function kick(): Promise<void> {
    if (stopped) return Promise.resolve();
    if (running) {
      again = true;
      return running;
    }
    // No intake batch's work, whichever woke it: each series' message continues its row's trace.
    running = outsideTraces(async () => {
      for (let i = 0; i < MAX_REPEATS; i++) {
        again = false;
        try {
          await drain();
        } catch (err) {
          deps.log.warn({ err }, "publishing attempt series failed; the next tick retries");
          return;
        }
        if (!again || stopped) return;
      }
    }).finally(() => {
      running = undefined;
    });
    return running;
  }

  /** Drains now and every `everyMs`; the returned stop waits for a drain in progress (it uses the store and NATS). */
  function start(everyMs: number): () => Promise<void> {
    void kick();
    const timer = setInterval(() => void kick(), everyMs);
    return async () => {
      stopped = true;
      clearInterval(timer);
      await running;
    };
  }

  return { kick, start };
}
