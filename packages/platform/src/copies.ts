/**
 * What a copy of a call answers while the first copy of the call is still at work.
 *
 * A caller copies an idempotent call that goes unanswered for NATS_HEDGE_AFTER (hedge.ts). A call
 * whose work waits on a step whose outcome comes later (the acquirer, the balance) is often slower
 * than that, so its copy arrives while the first copy is in that step. Answered with what it finds
 * then (a PENDING refund, a PENDING charge), the copy would beat the first copy's final answer of a
 * moment later, and the caller would hear an outcome that was never the call's. So a copy waits for
 * the first copy's outcome, while its caller still waits (bus.ts `improveWithinMs`), in one of two ways:
 * - on the process where the first copy runs, serve() hands the copy the first copy's own answer
 *   (`CallsInHand`): the very same reply, errors included, the work not run twice;
 * - on another replica, the handler finds the work begun in the store and reads it again until it
 *   has settled (`settledWithin`).
 * Neither holds anything but a timer while it waits: other requests are served meanwhile.
 */

/** How often a copy reads again the row of work that the first copy of its call is doing. */
const SETTLED_POLL_MS = 50;

/**
 * `current` once `settled(current)`, reading it again with `reload` every 50 ms for at most
 * `withinMs`; then whatever was read last. A reload that finds nothing keeps the last state.
 */
export async function settledWithin<T>(current: T, reload: () => Promise<T | undefined>, settled: (state: T) => boolean, withinMs: number): Promise<T> {
  const until = performance.now() + withinMs;
  while (!settled(current) && performance.now() + SETTLED_POLL_MS < until) {
    await Bun.sleep(SETTLED_POLL_MS);
    current = (await reload()) ?? current;
  }
  return current;
}

/** The answer of `promise` if it comes within `ms`, else undefined (the timer is cleared either way). */
async function within<T>(promise: Promise<T>, ms: number): Promise<{ value: T } | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([promise.then((value) => ({ value })), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The calls of one rpc this process is answering, by call id, so that a copy that lands here
 * while its first copy is still at work gets that copy's answer instead of running again.
 */
export class CallsInHand<A> {
  private readonly running = new Map<string, Promise<A>>();

  /**
   * run() for the first copy of a call to arrive; a later copy gets the first one's answer if it
   * comes within withinMs() (read only then: most calls have no copy), else runs itself, as it
   * would have without the first (a first copy that outlives its caller has nobody to answer).
   * `joined` is told of each copy that got the first one's answer.
   */
  async answer(callId: string | undefined, run: () => Promise<A>, withinMs: () => number, joined: () => void): Promise<A> {
    if (callId === undefined) return run();
    const first = this.running.get(callId);
    if (first) {
      const answered = await within(first, withinMs());
      if (answered) {
        joined();
        return answered.value;
      }
      return run();
    }
    const mine = run();
    this.running.set(callId, mine);
    try {
      return await mine;
    } finally {
      this.running.delete(callId);
    }
  }
}
