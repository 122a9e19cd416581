import { measureCpu } from "./proc.ts";
import type { LoadRow } from "./report.ts";
import { errorsOf, requestsPerSecond, runWrk, type WrkRun } from "./wrk.ts";

export type LoadSettings = { wrk: string; seconds: number; warmupSeconds: number; connections: number; threads: number };

/** The load of a run from BENCH_SECONDS, BENCH_WARMUP_SECONDS, BENCH_CONNECTIONS and BENCH_WRK_THREADS (the scripts that run some rows alone). */
export function loadFromEnv(wrk: string): LoadSettings {
  const env = (name: string, dflt: number) => Number(process.env[name] ?? dflt);
  return { wrk, seconds: env("BENCH_SECONDS", 8), warmupSeconds: env("BENCH_WARMUP_SECONDS", 2), connections: env("BENCH_CONNECTIONS", 64), threads: env("BENCH_WRK_THREADS", 1) };
}
export type Run = Omit<WrkRun, "seconds" | "connections" | "threads">;

/** One row of the load table: a warm-up run, then the measured run with the CPU of `pids` followed. */
export async function measureLoad(s: LoadSettings, key: string, label: string, pids: Record<string, number | number[]>, warmup: Run, run = warmup, connections = s.connections): Promise<LoadRow> {
  console.error(`[bench] ${label}: warm-up ${s.warmupSeconds} s, then ${s.seconds} s`);
  const load = { connections, threads: s.threads };
  await runWrk(s.wrk, { ...warmup, ...load, seconds: s.warmupSeconds });
  const m = await measureCpu(pids, async () => {
    const r = await runWrk(s.wrk, { ...run, ...load, seconds: s.seconds });
    return { result: r.result, extra: { wrk: r.wrkCpuSeconds } };
  });
  const r = m.result;
  return { key, label, rps: requestsPerSecond(r), p50Ms: r.p50Us / 1000, p99Ms: r.p99Us / 1000, errors: errorsOf(r), cpu: m.cpu };
}
