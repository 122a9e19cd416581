import type { CircuitState, ConnectorHealth, ConnectorId } from "@payaccept/contracts";
import { prom, registry } from "@payaccept/platform";
import { notStarted, ProviderError, type ProviderPort } from "../provider/port.ts";

const calls = new prom.Counter({
  name: "payments_connector_calls_total",
  help: "Calls of payments to its connectors (acquirers), by connector, operation and outcome: ok (answered), refused (answered no), unavailable (no answer, a timeout, a 5xx), short_circuit (not sent: the circuit is open)",
  labelNames: ["connector", "operation", "outcome"] as const,
  registers: [registry],
});
const latency = new prom.Histogram({
  name: "payments_connector_call_seconds",
  help: "Time of a connector call that was sent, by connector and operation",
  labelNames: ["connector", "operation"] as const,
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 3, 5],
  registers: [registry],
});
const circuitGauge = new prom.Gauge({
  name: "payments_connector_circuit_state",
  help: "A connector's circuit in this process: 0 closed (calls go), 1 half-open (one trial call goes), 2 open (calls fail at once)",
  labelNames: ["connector"] as const,
  registers: [registry],
});
export const failovers = new prom.Counter({
  name: "payments_connector_failovers_total",
  help: "Sessions a connector could not take before anything began there (refused connection, 5xx, open circuit) and the next connector of the shop's list took, by from and to",
  labelNames: ["from", "to"] as const,
  registers: [registry],
});

const CIRCUIT_VALUE: Record<CircuitState, number> = { closed: 0, "half-open": 1, open: 2 };

export type CircuitOptions = {
  /** Consecutive unanswered calls that open the circuit. */
  failures: number;
  /** How long it stays open before one trial call may go. */
  openMs: number;
  /** The window of the health figures an operator reads (rpcs.payments.connectors). */
  windowMs: number;
};

type Call = { at: number; ok: boolean; ms: number };

/**
 * A connector's health in this process: every call counted and timed, and a circuit breaker.
 * After `failures` calls in a row without an answer the circuit opens: calls fail at once, as
 * "nothing began" (routing then fails over to the shop's next connector) until `openMs` has
 * passed; then one trial call goes (half-open), and its answer closes the circuit or opens it
 * again. A refusal is an answer: the acquirer is up.
 */
export class ConnectorHealthMonitor {
  private state: CircuitState = "closed";
  private failuresInRow = 0;
  private openedAt = 0;
  private trialInFlight = false;
  private recent: Call[] = [];

  constructor(
    readonly id: ConnectorId,
    private readonly opts: CircuitOptions,
    private readonly clock: () => number = () => performance.now(),
  ) {
    circuitGauge.set({ connector: id }, 0);
    for (const outcome of ["ok", "refused", "unavailable", "short_circuit"]) calls.inc({ connector: id, operation: "createSession", outcome }, 0);
  }

  get circuit(): CircuitState {
    if (this.state === "open" && this.clock() - this.openedAt >= this.opts.openMs) return "half-open";
    return this.state;
  }

  /** The port with every call through the breaker and the counters. */
  wrap(port: ProviderPort): ProviderPort {
    const wrapped = {} as Record<string, unknown>;
    for (const [operation, fn] of Object.entries(port) as [string, (...args: unknown[]) => Promise<unknown>][]) {
      wrapped[operation] = (...args: unknown[]) => this.run(operation, () => fn(...args));
    }
    return wrapped as unknown as ProviderPort;
  }

  private async run<T>(operation: string, f: () => Promise<T>): Promise<T> {
    const circuit = this.circuit;
    if (circuit === "open" || (circuit === "half-open" && this.trialInFlight)) {
      calls.inc({ connector: this.id, operation, outcome: "short_circuit" });
      throw notStarted(`connector ${this.id}: circuit open`);
    }
    const trial = circuit === "half-open";
    if (trial) this.trialInFlight = true;
    const started = this.clock();
    try {
      const result = await f();
      this.record(operation, started, true, "ok");
      return result;
    } catch (e) {
      const answered = !(e instanceof ProviderError) || e.kind === "rejected";
      this.record(operation, started, answered, answered ? "refused" : "unavailable");
      throw e;
    } finally {
      if (trial) this.trialInFlight = false;
    }
  }

  private record(operation: string, started: number, answered: boolean, outcome: string): void {
    const now = this.clock();
    calls.inc({ connector: this.id, operation, outcome });
    latency.observe({ connector: this.id, operation }, (now - started) / 1000);
    this.recent.push({ at: now, ok: answered, ms: now - started });
    if (this.recent.length > 2000 || this.recent[0]!.at < now - this.opts.windowMs) this.recent = this.recent.filter((c) => c.at >= now - this.opts.windowMs).slice(-1000);
    if (answered) {
      this.failuresInRow = 0;
      this.setState("closed");
      return;
    }
    this.failuresInRow++;
    if (this.state === "open" || this.failuresInRow >= this.opts.failures) {
      this.openedAt = now;
      this.setState("open");
    }
  }

  private setState(state: CircuitState): void {
    this.state = state;
    circuitGauge.set({ connector: this.id }, CIRCUIT_VALUE[state]);
  }

  /** The figures an operator sees: the circuit, and the calls of the window with their success ratio and p95. */
  health(configured: boolean, isDefault: boolean): ConnectorHealth {
    const now = this.clock();
    const window = this.recent.filter((c) => c.at >= now - this.opts.windowMs);
    const ms = window.map((c) => c.ms).sort((a, b) => a - b);
    return {
      id: this.id,
      configured,
      default: isDefault,
      circuit: this.circuit,
      calls: window.length,
      successRatio: window.length === 0 ? null : window.filter((c) => c.ok).length / window.length,
      p95Ms: ms.length === 0 ? null : Math.round(ms[Math.min(ms.length - 1, Math.floor(ms.length * 0.95))]!),
      windowSeconds: Math.round(this.opts.windowMs / 1000),
    };
  }
}
