import client from "prom-client";

/** One registry per process; every service exposes it at GET /metrics. */
export const registry = new client.Registry();
// The event loop's lag is sampled every 100 ms, not prom-client's 10: a timer firing a hundred
// times a second cost every process ~8 ms of CPU per second idle (a tenth of a core per stack of ten
// services); lags worth an alert are far longer than the coarser sampling.
client.collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 100 });
// Bun answers v8.getHeapSpaceStatistics by walking the whole heap: 30–230 ms of CPU per scrape
// (the rest of a scrape takes 0.5–2 ms), every 15 s in every process, and in the benches' runs.
// Heap totals stay (nodejs_heap_size_*_bytes, process_resident_memory_bytes).
const HEAP_SPACE_GAUGES = ["total", "used", "available"].map((m) => `nodejs_heap_space_size_${m}_bytes`);
for (const name of HEAP_SPACE_GAUGES) registry.removeSingleMetric(name);

export const httpRequestDuration = new client.Histogram({
  name: "http_request_duration_seconds",
  help: "HTTP request latency by route and status",
  labelNames: ["method", "route", "status"] as const,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  registers: [registry],
});

/** NATS request latency by subject and outcome, as the side that asks or the side that answers sees it. */
const natsLatency = (name: string, help: string) =>
  new client.Histogram({
    name,
    help,
    labelNames: ["subject", "outcome"] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 3],
    registers: [registry],
  });

export const natsRequestDuration = natsLatency("nats_request_duration_seconds", "Latency of NATS requests this service makes, by subject and outcome");

export const natsRequestCopies = new client.Counter({
  name: "nats_request_copies_total",
  help: "Copies of unanswered idempotent NATS requests this service sent (hedging), by subject",
  labelNames: ["subject"] as const,
  registers: [registry],
});

export const rpcCopiesJoined = new client.Counter({
  name: "nats_rpc_copies_joined_total",
  help: "Copies of a call that reached this service while it was still handling the call, answered with that call's reply, by subject",
  labelNames: ["subject"] as const,
  registers: [registry],
});

export const rpcHandled = new client.Counter({
  name: "nats_rpc_handled_total",
  help: "NATS requests this service answered, by subject and outcome",
  labelNames: ["subject", "outcome"] as const,
  registers: [registry],
});

export const rpcDuration = natsLatency("nats_rpc_duration_seconds", "Time this service took to answer NATS requests, by subject and outcome");

/** Set by peer-clocks.ts; the series of a peer not heard from for 10 minutes is removed. */
export const clockOffset = new client.Gauge({
  name: "clock_offset_seconds",
  help: "Estimated offset of a peer process's clock from this process's clock (the peer's minus ours), by peer (service@host/pid)",
  labelNames: ["peer"] as const,
  registers: [registry],
});

/** The gauges of one scrape share one read: a read is reused for this long. */
const SCRAPE_READ_MS = 1000;

/** `read` shared by the gauges of one scrape: each gauge's collect() calls it, the first one reads. */
export function readOncePerScrape<T>(read: () => T): () => T {
  let last: { at: number; value: T } | undefined;
  return () => {
    const at = Date.now();
    if (!last || at - last.at > SCRAPE_READ_MS) last = { at, value: read() };
    return last.value;
  };
}

export { client as prom };
