import type { Logger } from "./log.ts";

/**
 * What a closer ends, in the order shutdown runs them: first the intake (HTTP, RPC serving: no new
 * work, the work taken is finished), then the work in hand (consumers, background workers,
 * watches), then the NATS connection (drained), then the store, when nothing can use it any more.
 */
const CLOSE_STAGES = ["intake", "work", "bus", "store"] as const;
export type CloseStage = (typeof CLOSE_STAGES)[number];

type Closer = { name: string; stage: CloseStage; close: () => unknown | Promise<unknown> };

/**
 * Graceful shutdown: on SIGTERM/SIGINT the closers run one after another, stage by stage
 * (CLOSE_STAGES), and within a stage in reverse registration order; then the process exits. The
 * stage, not the place in main.ts, decides that HTTP stops before the NATS connection is drained and
 * that the store closes last. The whole sequence is bounded by SHUTDOWN_GRACE_MS. Each closer logs a
 * line when it is done, so the order can be read in the log (tests/graceful-shutdown.test.ts does).
 */
export class Lifecycle {
  private closers: Closer[] = [];
  private stopping: Promise<void> | undefined;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly log: Logger,
    /** SHUTDOWN_GRACE_MS. */
    private readonly graceMs: number,
  ) {
    for (const sig of ["SIGTERM", "SIGINT"] as const) process.on(sig, () => void this.shutdown(sig));
  }

  onClose(name: string, close: Closer["close"], stage: CloseStage = "work"): void {
    this.closers.push({ name, stage, close });
  }

  /**
   * A worker the service is useless without (an event consumer): stopped at shutdown like any
   * closer, and when it ends on its own the process shuts down, so that the supervisor starts one
   * that sets the worker up again.
   */
  essential(name: string, worker: { stop: () => unknown; ended: Promise<unknown> }): void {
    this.onClose(name, () => worker.stop());
    void worker.ended.then(() => {
      if (this.isStopping) return;
      this.log.fatal({ worker: name }, "essential worker stopped; exiting");
      void this.shutdown(`${name} stopped`);
    });
  }

  get isStopping(): boolean {
    return this.stopping !== undefined;
  }

  /** Runs every closer once, in shutdown order; a failing closer is logged and the next one runs. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      const ordered = CLOSE_STAGES.flatMap((stage) => this.closers.filter((c) => c.stage === stage).reverse());
      for (const c of ordered) {
        const started = performance.now();
        try {
          await c.close();
          this.log.info({ closer: c.name, stage: c.stage, ms: Math.round(performance.now() - started) }, "closed");
        } catch (err) {
          this.log.warn({ err, closer: c.name, stage: c.stage }, "closer failed");
        }
      }
    })();
    return this.closing;
  }

  shutdown(reason: string): Promise<void> {
    this.stopping ??= (async () => {
      this.log.info({ reason }, "shutting down");
      const force = setTimeout(() => {
        this.log.error("shutdown grace period exceeded; exiting");
        process.exit(1);
      }, this.graceMs);
      await this.close();
      clearTimeout(force);
      this.log.info("stopped");
      process.exit(0);
    })();
    return this.stopping;
  }
}
