import type { Database } from "bun:sqlite";
import { bindToCurrent } from "./tracing.ts";

type Pending = { work: () => unknown; resolve: (value: unknown) => void; reject: (reason: unknown) => void };
type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * Group commit: writes asked for during one turn of the event loop share one IMMEDIATE
 * transaction. A commit in WAL mode writes every page the transaction touched, so a hundred
 * inserts into the same table and index pages cost little more than one; committed one by one,
 * the commits were most of payments' CPU per created payment.
 *
 * Each write runs in its own savepoint (its own `db.transaction` calls nest as savepoints), so a
 * write that throws undoes only itself and its caller gets the error. Every caller's promise
 * settles after the COMMIT that made its write durable, never before; if the transaction itself
 * cannot be taken or committed, every write of the group fails with that error and none is kept.
 * The group runs synchronously from BEGIN to COMMIT, so no other work of this process ever sees
 * a write that is not yet committed.
 */
export class GroupCommit {
  private queue: Pending[] = [];
  /** Callbacks of the group being run, waiting for its COMMIT. */
  private committing: (() => void)[] | undefined;

  constructor(
    private readonly sqlite: Database,
    private readonly onCallbackError: (err: unknown) => void = (err) => console.error(err),
  ) {}

  /** `work` and its afterCommit callbacks run in the caller's trace context, not the group's first caller's. */
  run<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.queue.push({ work: bindToCurrent(work), resolve: resolve as (value: unknown) => void, reject }) === 1) setImmediate(() => this.commit());
    });
  }

  /**
   * Runs `fn` once what was just written is committed: at once outside a group (the write's own
   * transaction has committed), after the group's COMMIT inside one, and never if the write it
   * belongs to is undone. For what must not happen before the commit: announcing a status
   * change, waking the outbox relay.
   */
  afterCommit(fn: () => void): void {
    if (this.committing) this.committing.push(bindToCurrent(fn));
    else fn();
  }

  private commit(): void {
    const group = this.queue;
    this.queue = [];
    const callbacks: (() => void)[] = [];
    let outcomes: Outcome[];
    this.committing = callbacks;
    try {
      outcomes = this.sqlite
        .transaction(() =>
          group.map(({ work }): Outcome => {
            const kept = callbacks.length;
            try {
              return { ok: true, value: this.sqlite.transaction(work)() };
            } catch (error) {
              callbacks.length = kept;
              return { ok: false, error };
            }
          }),
        )
        .immediate();
    } catch (error) {
      for (const p of group) p.reject(error);
      return;
    } finally {
      this.committing = undefined;
    }
    for (const fn of callbacks) {
      try {
        fn();
      } catch (err) {
        this.onCallbackError(err);
      }
    }
    group.forEach((p, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) p.resolve(outcome.value);
      else p.reject(outcome.error);
    });
  }
}
