import { prom, registry } from "./metrics.ts";
import { NotReady, storeReadiness } from "./store-readiness.ts";

export type ReadinessCheck = () => boolean | Promise<boolean>;

/** What /readyz answers: every check's result, and what a failing check said is down (NotReady). */
export type Readiness = { ready: boolean; checks: Record<string, boolean>; down: Record<string, string> };

/** Runs the given checks plus the `database` check of the store this process opened (store-readiness.ts). */
export async function readiness(checks: Record<string, ReadinessCheck>): Promise<Readiness> {
  const database = storeReadiness();
  const all = database ? { ...checks, database } : checks;
  const results: Record<string, boolean> = {};
  const down: Record<string, string> = {};
  for (const [name, check] of Object.entries(all)) {
    try {
      results[name] = await check();
    } catch (e) {
      results[name] = false;
      if (e instanceof NotReady) down[name] = e.message;
    }
  }
  return { ready: Object.values(results).every(Boolean), checks: results, down };
}

/** The checks of the process's /readyz, which /metrics reports too; unset in a process that serves none. */
let exposed: Record<string, ReadinessCheck> | undefined;
/** One evaluation shared by the gauges of one scrape. */
let inFlight: Promise<Readiness> | undefined;

/**
 * Makes these checks the ones /metrics reports as `service_ready` and `service_readiness_check`
 * (healthRoutes calls it: a process has one /readyz). Prometheus scrapes /metrics, never /readyz,
 * so without the gauges a replica that is up but not ready (NATS or its store gone) could only be
 * seen by a separate prober; with them one scrape says both, and the alert names the failing check.
 */
export function exposeReadiness(checks: Record<string, ReadinessCheck>): void {
  exposed = checks;
}

function scrapeReadiness(): Promise<Readiness> | undefined {
  if (!exposed) return undefined;
  inFlight ??= readiness(exposed).finally(() => (inFlight = undefined));
  return inFlight;
}

new prom.Gauge({
  name: "service_ready",
  help: "1 when every readiness check of /readyz passes (the process would answer 200), else 0",
  registers: [registry],
  async collect() {
    const r = await scrapeReadiness();
    if (r) this.set(r.ready ? 1 : 0);
  },
});

new prom.Gauge({
  name: "service_readiness_check",
  help: "Each readiness check of /readyz by name: 1 passing, 0 failing",
  labelNames: ["check"] as const,
  registers: [registry],
  async collect() {
    const r = await scrapeReadiness();
    if (!r) return;
    this.reset();
    for (const [check, ok] of Object.entries(r.checks)) this.set({ check }, ok ? 1 : 0);
  },
});
