/**
 * What one round of a polling worker found: `"more"` (a full batch: run again at once), or when the
 * next row falls due on the worker's clock (`null`: none is waiting).
 */
export type RoundResult = "more" | number | null;

/**
 * A worker over rows that fall due (an outbox of callbacks or receipts): `round` handles what is
 * due now, then the worker sleeps until the next row falls due, at most `idleMs` (rows another
 * process writes are not left waiting longer), or until `wake()` says something became due. One
 * round at a time; a round that throws goes to onError and the next runs after `idleMs` (a store
 * briefly away costs a round, not the worker). stop() lets the running round finish.
 */
export class PollingWorker {
  private stopped = false;
  /** A wake() since the current round began: the next round runs without sleeping. */
  private woken = false;
  private wakeUp: (() => void) | undefined;
  private loop: Promise<void> | undefined;

  constructor(
    private readonly round: () => Promise<RoundResult>,
    private readonly opts: { idleMs: number; now: () => number },
    private readonly onError: (err: unknown) => void,
  ) {}

  start(): void {
    this.loop = this.run();
  }

  /** Look for due rows now rather than at the next scheduled round. */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wakeUp?.();
    await this.loop;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      let wait: number;
      this.woken = false;
      try {
        const found = await this.round();
        wait = found === "more" ? 0 : found === null ? this.opts.idleMs : Math.max(0, Math.min(found - this.opts.now(), this.opts.idleMs));
      } catch (e) {
        this.onError(e);
        wait = this.opts.idleMs;
      }
      if (this.stopped) return;
      // Even a round that runs again at once waits for the next turn of the event loop: a round
      // that finds its due rows all in flight (a callback sent on a buyer's request) resolves in
      // microtasks, and a loop of those would starve the I/O those rows wait on, HTTP included.
      await (wait > 0 && !this.woken ? this.sleep(wait) : new Promise<void>((resolve) => setImmediate(resolve)));
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wakeUp = () => {
        clearTimeout(timer);
        this.wakeUp = undefined;
        resolve();
      };
    });
  }
}
