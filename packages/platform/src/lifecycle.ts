import { commonEnv, parseConfig } from "./config.ts";
import type { Logger } from "./log.ts";

type Closer = { name: string; close: () => unknown | Promise<unknown> };

/**
 * Graceful shutdown: on SIGTERM/SIGINT the closers run one after another in reverse registration
 * order, then the process exits. Registered in dependency order (store, NATS connection,
 * background workers, consumers, RPC serving, HTTP), they first stop taking new work while
 * finishing what was taken (HTTP requests, RPCs, messages in hand), then stop the workers, then
 * drain the connection, and close the store last, when nothing can use it any more. The whole
 * sequence is bounded by SHUTDOWN_GRACE_MS.
 */
export class Lifecycle {
  private closers: Closer[] = [];
  private stopping: Promise<void> | undefined;

  constructor(
    private readonly log: Logger,
    private readonly graceMs = parseConfig({ SHUTDOWN_GRACE_MS: commonEnv.SHUTDOWN_GRACE_MS }).SHUTDOWN_GRACE_MS,
  ) {
    for (const sig of ["SIGTERM", "SIGINT"] as const) process.on(sig, () => void this.shutdown(sig));
  }

  onClose(name: string, close: Closer["close"]): void {
    this.closers.push({ name, close });
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

  shutdown(reason: string): Promise<void> {
    this.stopping ??= (async () => {
      this.log.info({ reason }, "shutting down");
      const force = setTimeout(() => {
        this.log.error("shutdown grace period exceeded; exiting");
        process.exit(1);
      }, this.graceMs);
      for (const c of [...this.closers].reverse()) {
        try {
          await c.close();
        } catch (err) {
          this.log.warn({ err, closer: c.name }, "closer failed");
        }
      }
      clearTimeout(force);
      this.log.info("stopped");
      process.exit(0);
    })();
    return this.stopping;
  }
}
