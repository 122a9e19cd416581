/**
 * `bun bench/tracing-http.ts`: what tracing on (the default sampling, exporting to a local OTLP
 * sink) costs one request of platform's HTTP chain alone (bench/servers/traced-http.ts): one
 * server off and one on, each under its own wrk AT THE SAME TIME, BENCH_TRACING_ROUNDS rounds, so
 * that both see the same load of a shared machine; prints each round's CPU µs per request of both
 * and the medians. On this machine two whole stacks side by side move by a tenth between rounds,
 * this pair by a few percent. Settings: BENCH_SECONDS (5 here), BENCH_WARMUP_SECONDS (2),
 * BENCH_CONNECTIONS (32), BENCH_TRACING_ROUNDS (4).
 */
import { benchEnv, loadSettingsFromEnv, measureLoad } from "./lib/measure.ts";
import { listeningPort, startBenchServer, stopServers } from "./lib/spawn.ts";
import { quantile } from "./lib/stats.ts";

const load = { ...loadSettingsFromEnv(), seconds: benchEnv("BENCH_SECONDS", 5), warmupSeconds: benchEnv("BENCH_WARMUP_SECONDS", 2), connections: benchEnv("BENCH_CONNECTIONS", 32) };
const rounds = benchEnv("BENCH_TRACING_ROUNDS", 4);
const MODES = ["off", "on"] as const;

const sink = await startBenchServer("otlp-sink.ts");
const endpoint = `http://127.0.0.1:${listeningPort(sink.line)}`;
const servers = await Promise.all(MODES.map((mode) => startBenchServer("traced-http.ts", mode === "on" ? { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint } : {})));
try {
  const µs: Record<(typeof MODES)[number], number[]> = { off: [], on: [] };
  for (let round = 1; round <= rounds; round++) {
    const rows = await Promise.all(
      MODES.map((mode, i) => {
        const url = `http://127.0.0.1:${listeningPort(servers[i]!.line)}/v1/payments/pay_bench`;
        return measureLoad(load, mode, `tracing ${mode}`, { [mode]: servers[i]!.proc.pid }, { url, script: ["static"] });
      }),
    );
    rows.forEach((r, i) => µs[MODES[i]!].push((r.cpu[MODES[i]!]! / r.rps) * 1e6));
    console.log(`round ${round}: CPU µs per request, off ${µs.off.at(-1)!.toFixed(1)}, on ${µs.on.at(-1)!.toFixed(1)}`);
  }
  const off = quantile(µs.off, 0.5);
  const on = quantile(µs.on, 0.5);
  console.log(`median of ${rounds}: off ${off.toFixed(1)}, on ${on.toFixed(1)} µs per request (on − off ${(on - off).toFixed(1)}, on/off ${(on / off).toFixed(2)})`);
} finally {
  await stopServers([...servers.map((s) => s.proc), sink.proc]);
}
