import { measureCpu } from "./proc.ts";
import type { LoadRow } from "./report.ts";
import { ensureWrk, errorsOf, requestsPerSecond, runWrk, type WrkRun } from "./wrk.ts";

export type LoadSettings = { wrk: string; seconds: number; warmupSeconds: number; connections: number; threads: number };
export type Run = Omit<WrkRun, "seconds" | "connections" | "threads">;

/** A BENCH_* number, or its default. */
export const benchEnv = (name: string, dflt: number) => Number(process.env[name] ?? dflt);

/** The load settings of a bench script run on its own (bench/run.ts documents the variables); wrk installed if missing. */
export function loadSettingsFromEnv(): LoadSettings {
  return {
    wrk: ensureWrk(),
    seconds: benchEnv("BENCH_SECONDS", 8),
    warmupSeconds: benchEnv("BENCH_WARMUP_SECONDS", 2),
    connections: benchEnv("BENCH_CONNECTIONS", 64),
    threads: benchEnv("BENCH_WRK_THREADS", 1),
  };
}

type Pids = Record<string, number | number[]>;

/**
 * One row of the load table: a warm-up run, then the measured run with the CPU of `pids` followed
 * (a function is asked after the warm-up: processes it started, such as PostgreSQL's backends, count).
 */
export async function measureLoad(s: LoadSettings, key: string, label: string, pids: Pids | (() => Pids), warmup: Run, run = warmup, connections = s.connections): Promise<LoadRow> {
  console.error(`[bench] ${label}: warm-up ${s.warmupSeconds} s, then ${s.seconds} s`);
  const load = { connections, threads: s.threads };
  await runWrk(s.wrk, { ...warmup, ...load, seconds: s.warmupSeconds });
  const m = await measureCpu(typeof pids === "function" ? pids() : pids, async () => {
    const r = await runWrk(s.wrk, { ...run, ...load, seconds: s.seconds });
    return { result: r.result, extra: { wrk: r.wrkCpuSeconds } };
  });
  const r = m.result;
  return { key, label, rps: requestsPerSecond(r), p50Ms: r.p50Us / 1000, p99Ms: r.p99Us / 1000, errors: errorsOf(r), cpu: m.cpu };
}
