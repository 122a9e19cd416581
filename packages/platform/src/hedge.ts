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
 * copies of one process are bounded by a budget: each call earns one, each copy spends one, at most
 * HEDGE_BURST saved. A process that hedges every call (an overload where every answer is late)
 * thus at most doubles its requests, and never multiplies them.
 */

/** Copies that may be sent back to back before the budget runs dry. */
export const HEDGE_BURST = 100;

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

export type HedgeOptions = {
  /** The caller's deadline (epoch ms): no copy is sent after it, and none answers later. */
  deadline: number;
  /** Silence after which the next copy goes out; 0 sends none. */
  afterMs: number;
  budget: HedgeBudget;
  /** Told of every copy sent (a metric). */
  onCopy: () => void;
};

/**
 * Runs attempt(msLeft) once, then again every afterMs until one resolves or the deadline comes.
 * The first attempt that resolves is the answer. One that fails (no responders, a closed
 * connection, its timeout at the deadline) ends the call when no other attempt is pending, as an
 * unhedged call would end: a service that is simply absent is still reported at once.
 */
export function hedged<T>(attempt: (msLeft: number) => Promise<T>, o: HedgeOptions): Promise<T> {
  o.budget.earn();
  return new Promise<T>((resolve, reject) => {
    let pending = 0;
    let done = false;
    let next: ReturnType<typeof setTimeout> | undefined;
    const finish = () => {
      done = true;
      clearTimeout(next);
    };
    const send = () => {
      pending++;
      attempt(Math.max(1, o.deadline - Date.now())).then(
        (value) => {
          if (done) return;
          finish();
          resolve(value);
        },
        (err) => {
          if (done || --pending > 0) return;
          finish();
          reject(err);
        },
      );
      // A copy is worth sending only with at least afterMs left for its answer.
      next = o.afterMs > 0 && Date.now() + 2 * o.afterMs <= o.deadline ? setTimeout(copy, o.afterMs) : undefined;
    };
    const copy = () => {
      if (done || !o.budget.take()) return;
      o.onCopy();
      send();
    };
    send();
  });
}
