/**
 * Periodic background work (the sweepers): `work` runs at start and every everyMs, never two runs
 * at once (a tick that finds the last run still going is skipped), and stop() waits for the run in
 * flight. A failed run goes to onError and the next tick tries again.
 */
export class Ticker {
  private timer: ReturnType<typeof setInterval> | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly work: () => Promise<unknown>,
    private readonly everyMs: number,
    private readonly onError: (err: unknown) => void,
  ) {}

  start(): void {
    this.timer = setInterval(() => this.tick(), this.everyMs);
    this.tick();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** Runs the work now, not at the next tick (new work was just committed); while a run goes on, that run or the next tick picks it up. */
  kick(): void {
    if (this.timer !== undefined) this.tick();
  }

  private tick(): void {
    if (this.running) return;
    this.running = Promise.resolve()
      .then(this.work)
      .then(() => undefined, this.onError)
      .finally(() => (this.running = undefined));
  }
}
