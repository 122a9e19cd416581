import { closeSync, openSync } from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { loadConfig, retryDelayMs, type Backoff } from "@payaccept/platform";
import { ROOT, SERVICES, servicePort, launcherEnv, type ServiceName } from "./services.ts";

/** As an orchestrator's restart policy: no budget, the service is wanted back. */
const RESTART_RETRY: Backoff = { baseMs: 250, capMs: 10_000 };

const { SERVICES_EXECUTABLE } = loadConfig(launcherEnv);

/** How a service is started: from its sources, or by the stack's compiled executable when there is one. */
export const serviceCommand = (name: ServiceName): string[] => (SERVICES_EXECUTABLE ? [SERVICES_EXECUTABLE, name] : ["bun", "src/main.ts"]);

/** How the admin CLI is started, likewise. */
export const adminCommand = (): string[] => (SERVICES_EXECUTABLE ? [SERVICES_EXECUTABLE, "admin"] : ["bun", join(ROOT, "infra/admin/main.ts")]);

export type SupervisorLog = (event: string, fields: Record<string, unknown>) => void;

/**
 * Runs one service as its own Bun process. With restart on, a process that exits on its own is
 * started again after a short, growing backoff (reset after a minute of good health), as an
 * orchestrator's restart policy would; it never touches the other services.
 */
export class ServiceProcess {
  proc: Subprocess | undefined;
  private stopped = false;
  private failures = 0;
  private startedAt = 0;

  constructor(
    readonly name: ServiceName,
    private readonly env: Record<string, string>,
    /** `command`: how this process starts instead of serviceCommand (another release's executable, in an upgrade test). */
    private readonly opts: { restart: boolean; log: SupervisorLog; output?: "inherit" | string; readyWaitMs?: number; command?: string[] },
  ) {}

  get port(): number {
    return servicePort(this.name, this.env);
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Starts the service; its output file (if any) begins afresh with this run. */
  start(): void {
    this.stopped = false;
    this.spawn("w");
  }

  /**
   * `w` writes the output file afresh, `a` adds to it (a restart after a crash keeps the crashed
   * run's last lines). Opened here rather than handed over as Bun.file, which writes over the file
   * from its first byte without truncating it: the end of a longer earlier log stayed behind.
   */
  private spawn(mode: "w" | "a"): void {
    const out = !this.opts.output || this.opts.output === "inherit" ? "inherit" : openSync(this.opts.output, mode);
    this.startedAt = Date.now();
    const proc = Bun.spawn(this.opts.command ?? serviceCommand(this.name), {
      cwd: join(ROOT, SERVICES[this.name].dir),
      env: this.env,
      stdout: out,
      stderr: out,
    });
    if (out !== "inherit") closeSync(out);
    this.proc = proc;
    void proc.exited.then((code) => {
      if (this.proc !== proc || this.stopped || !this.opts.restart) return;
      if (Date.now() - this.startedAt > 60_000) this.failures = 0;
      this.failures++;
      const delay = retryDelayMs(RESTART_RETRY, this.failures);
      this.opts.log("service exited; restarting", { service: this.name, code, restartInMs: delay });
      setTimeout(() => {
        if (!this.stopped && this.proc === proc) this.spawn("a");
      }, delay);
    });
  }

  async waitReady(timeoutMs = this.opts.readyWaitMs ?? 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      // Not restarted, a process that ended will not be ready: whatever answers its port now is not it.
      const p = this.proc;
      if (!this.opts.restart && p && (p.exitCode !== null || p.signalCode !== null)) throw new Error(`${this.name} exited (${p.exitCode ?? p.signalCode}) before it was ready`);
      try {
        const res = await fetch(`${this.url}/readyz`, { signal: AbortSignal.timeout(1000) });
        if (res.ok) return;
      } catch {
        // not listening yet
      }
      await Bun.sleep(100);
    }
    throw new Error(`${this.name} not ready on ${this.url} after ${timeoutMs} ms`);
  }

  /** Sends a signal without stopping supervision (a crash, as far as the supervisor knows). */
  kill(signal: NodeJS.Signals = "SIGKILL"): Promise<number | null> {
    const p = this.proc;
    if (!p) return Promise.resolve(null);
    p.kill(signal);
    return p.exited;
  }

  async stop(signal: NodeJS.Signals = "SIGTERM", timeoutMs = 15000): Promise<void> {
    this.stopped = true;
    const p = this.proc;
    if (!p || p.exitCode !== null || p.signalCode !== null) return;
    p.kill(signal);
    const timer = setTimeout(() => p.kill("SIGKILL"), timeoutMs);
    await p.exited;
    clearTimeout(timer);
  }
}
