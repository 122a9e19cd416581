/**
 * Hedged requests: while a call goes unanswered, send a copy of it.
 *
 * A NATS node that hangs keeps, in its peers' view, the queue subscriptions its clients had made
 * before they moved away from it; a request routed to such a member vanishes. nats-server 2.9
 * keeps those routes while it has traffic for them, so about one request in three vanished for as
 * long as the node stayed frozen. A copy sent after `afterMs` is routed afresh and answered by a
 * live replica; the first answer wins. Only calls whose rpc is `idempotent` are hedged: a copy that
 * also reaches a live replica must have no second effect.
 *
 * Copies cost load when the reason for silence is not a lost message but a slow responder, so the
 * copies of a connection are bounded by a budget: each call earns one, each copy spends one, at most
 * HEDGE_BURST saved. A process that hedges every call (an overload where every answer is late)
 * thus at most doubles its requests, and never multiplies them.
 */

/**
 * Copies that may be sent back to back before the budget runs dry. The first seconds of a hung
 * node take hundreds: until the connection is noticed stale, every waiting call is copied into it
 * in vain. With 100, those copies emptied the budget, and the calls of the next seconds, which a
 * copy would have saved, failed for want of one (9 of 522 creates in tests/nats-failover.test.ts).
 */
export const HEDGE_BURST = 1_000;

export class HedgeBudget {
  private tokens = HEDGE_BURST;

  /** A call was made: it pays for one later copy. */
  earn(): void {
    if (this.tokens < HEDGE_BURST) this.tokens++;
  }

  /** May a copy be sent now? Spends one if so. */
  take(): boolean {
    if (this.tokens < 1) return false;
    this.tokens--;
    return true;
  }
}

/** A call still waiting for its answer. */
type Waiting = { copyAt: number; copy: () => void };

/**
 * Sends the copies of one connection's calls. One timer, ticking a quarter of afterMs while calls
 * wait, serves them all: a timer per call cost the NATS round trip up to a fifth of its throughput.
 * A copy thus goes out between afterMs and 1.25 × afterMs after the attempt before it.
 */
export class Hedger {
  private readonly waiting = new Set<Waiting>();
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    /** Silence after which the next copy goes out; 0 sends none. */
    readonly afterMs: number,
    private readonly budget = new HedgeBudget(),
  ) {}

  /**
   * Runs attempt(msLeft) once, then again every afterMs until one resolves or the deadline (epoch
   * ms) comes; onCopy is told of each copy. The first attempt that resolves is the answer. One that
   * fails (no responders, a closed connection, its timeout at the deadline) ends the call when no
   * other attempt is pending, as an unhedged call would end: a service that is simply absent is
   * still reported at once.
   */
  run<T>(attempt: (msLeft: number) => Promise<T>, deadline: number, onCopy: () => void): Promise<T> {
    this.budget.earn();
    const answer = Promise.withResolvers<T>();
    let pending = 0;
    let done = false;
    const waiting: Waiting = { copyAt: 0, copy: () => this.budget.take() && (onCopy(), send()) };
    const finish = () => {
      done = true;
      this.unwait(waiting);
    };
    const send = () => {
      pending++;
      const now = Date.now();
      attempt(Math.max(1, deadline - now)).then(
        (value) => {
          if (done) return;
          finish();
          answer.resolve(value);
        },
        (err) => {
          if (done || --pending > 0) return;
          finish();
          answer.reject(err);
        },
      );
      // A copy is worth sending only with at least afterMs left for its answer.
      if (this.afterMs > 0 && now + 2 * this.afterMs <= deadline) this.wait(waiting, now + this.afterMs);
      else this.unwait(waiting);
    };
    send();
    return answer.promise;
  }

  private wait(w: Waiting, copyAt: number): void {
    w.copyAt = copyAt;
    this.waiting.add(w);
    this.timer ??= setInterval(() => this.tick(), Math.max(1, this.afterMs / 4));
  }

  private unwait(w: Waiting): void {
    this.waiting.delete(w);
    if (this.waiting.size === 0 && this.timer !== undefined) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  private tick(): void {
    const now = Date.now();
    for (const w of this.waiting) {
      if (w.copyAt > now) continue;
      // Out of the set first: the copy puts it back when another may follow it.
      this.unwait(w);
      w.copy();
    }
  }
}
