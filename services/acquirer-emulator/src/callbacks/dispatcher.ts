import { PollingWorker, retryDelayMs, tracedFetch, type GroupCommit, type Logger, type RetryPolicy, type RoundResult } from "@payaccept/platform";
import type { AcquirerDb } from "../store/db.ts";
import type { CallbackRow } from "../store/schema.ts";
import { dueCallbacks, markDelivered, markFailed, nextDueAfter, pendingCallback } from "./outbox.ts";
import { signedHeaders } from "./signing.ts";

const BATCH = 16;
/** Longest sleep between scans, so callbacks written while asleep are not left waiting. */
const IDLE_SCAN_MS = 1000;

export type DispatcherDeps = {
  db: AcquirerDb;
  /** A delivery's mark shares the commit of its turn's other writes. */
  commits: GroupCommit;
  secret: string;
  policy: RetryPolicy;
  timeoutMs: number;
  log: Logger;
};

/**
 * Delivers the callback outbox: every pending row is posted until a 2xx answers or its attempts run
 * out. State lives in SQLite, so a restart resumes where the last process stopped. One process owns
 * the file (see docs/acquirer-emulator.md); within it, a callback is never in flight twice.
 */
export class CallbackDispatcher {
  private readonly inFlight = new Map<string, Promise<boolean>>();
  private readonly worker: PollingWorker;

  constructor(private readonly deps: DispatcherDeps) {
    this.worker = new PollingWorker(() => this.round(), { idleMs: IDLE_SCAN_MS, now: Date.now }, (err) =>
      deps.log.error({ err }, "callback dispatcher could not read its store; trying again"),
    );
  }

  start(): void {
    this.worker.start();
  }

  /** One attempt right now (a buyer is waiting for the redirect); false when it did not land. */
  deliverNow(id: string): Promise<boolean> {
    const row = pendingCallback(this.deps.db, id);
    if (!row) return Promise.resolve(false);
    // Its next attempt is scheduled when it fails: the worker's sleep may end later than that.
    return this.attempt(row).then((ok) => (ok || this.worker.wake(), ok));
  }

  /** Look for due callbacks now rather than at the next scan (another part of the emulator wrote some). */
  poke(): void {
    this.worker.wake();
  }

  async stop(): Promise<void> {
    await this.worker.stop();
    await Promise.all(this.inFlight.values());
  }

  private async round(): Promise<RoundResult> {
    const now = Date.now();
    // A callback in flight (delivered now, for a buyer's redirect or a charge) is due too, but not this round's.
    const due = dueCallbacks(this.deps.db, now, BATCH, this.inFlight);
    await Promise.all(due.map((c) => this.attempt(c)));
    if (due.length === BATCH) return "more";
    // Every other callback due at `now` was this round's (its failures already rescheduled), so the
    // next falls due after it. One in flight elsewhere is not waited for: deliverNow wakes the worker
    // when it fails, and a delivered one leaves nothing to do.
    return nextDueAfter(this.deps.db, now);
  }

  private attempt(row: CallbackRow): Promise<boolean> {
    const running = this.inFlight.get(row.id);
    if (running) return running;
    const p = this.post(row).finally(() => this.inFlight.delete(row.id));
    this.inFlight.set(row.id, p);
    return p;
  }

  private async post(row: CallbackRow): Promise<boolean> {
    const { db, commits, secret, policy, timeoutMs, log } = this.deps;
    const attempts = row.attempts + 1;
    let error: string;
    try {
      const res = await tracedFetch(row.url, {
        method: "POST",
        headers: signedHeaders(secret, row.body, Date.now()),
        body: row.body,
        redirect: "manual",
        signal: AbortSignal.timeout(timeoutMs),
      });
      await res.body?.cancel();
      if (res.status >= 200 && res.status < 300) {
        const now = Date.now();
        await commits.run(() => markDelivered(db, row.id, attempts, now));
        log.info({ callbackId: row.id, sessionId: row.sessionId, attempts }, "callback delivered");
        return true;
      }
      error = `HTTP ${res.status}`;
    } catch (e) {
      error = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    }
    const pause = retryDelayMs(policy, attempts);
    const nextAt = pause === null ? null : Date.now() + pause;
    markFailed(db, row.id, attempts, error, nextAt);
    if (nextAt === null) log.error({ callbackId: row.id, sessionId: row.sessionId, attempts, error }, "callback abandoned after the last attempt");
    else log.warn({ callbackId: row.id, sessionId: row.sessionId, attempts, error, retryInMs: pause }, "callback not delivered; will retry");
    return false;
  }
}
