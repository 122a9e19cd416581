import { commonEnv, parseConfig } from "./config.ts";
import type { Logger } from "./log.ts";

type Closer = { name: string; close: () => unknown | Promise<unknown> };

/**
 * Graceful shutdown: on SIGTERM/SIGINT the closers run in reverse registration order
 * (stop HTTP intake first, then drain NATS, then close the store), then the process exits.
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
