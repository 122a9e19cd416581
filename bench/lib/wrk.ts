import { join } from "node:path";

/**
 * wrk, the C load generator (one event-loop thread per -t, LuaJIT for the request scripts): on a
 * 2-core machine it needs a fraction of the CPU a JavaScript client would to offer the same load,
 * so it takes less from the servers it measures (docs/performance.md has the comparison).
 */
export const SCRIPT = join(import.meta.dir, "../wrk/api.lua");

/** Installs wrk from the distribution's packages when it is missing (as root), like infra/scripts/bootstrap.sh. */
export function ensureWrk(): string {
  const found = Bun.which("wrk");
  if (found) return found;
  if (process.getuid?.() !== 0) throw new Error("wrk is missing: install it with: sudo apt-get install -y wrk");
  console.error("[bench] installing wrk (apt)");
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  for (const cmd of [["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", "wrk"]]) {
    const r = Bun.spawnSync(cmd, { env, stdout: "ignore", stderr: "inherit" });
    if (r.exitCode !== 0) throw new Error(`${cmd.join(" ")} failed with exit code ${r.exitCode}`);
  }
  const installed = Bun.which("wrk");
  if (!installed) throw new Error("wrk is still missing after apt-get install");
  return installed;
}

export type WrkResult = {
  requests: number;
  durationUs: number;
  connectErrors: number;
  readErrors: number;
  writeErrors: number;
  /** Responses with a status of 400 or more. */
  statusErrors: number;
  timeouts: number;
  p50Us: number;
  p90Us: number;
  p99Us: number;
  maxUs: number;
  meanUs: number;
};

export type WrkRun = {
  url: string;
  seconds: number;
  connections: number;
  threads: number;
  /** Arguments of bench/wrk/api.lua: ["static"], ["create" or "sdk-create", prefix], ["ids", file, method, path]. */
  script: string[];
  apiKey?: string;
};

export const requestsPerSecond = (r: WrkResult) => r.requests / (r.durationUs / 1e6);
export const errorsOf = (r: WrkResult) => r.connectErrors + r.readErrors + r.writeErrors + r.statusErrors + r.timeouts;

/** One wrk run; resolves with its summary and the CPU seconds wrk itself used. */
export async function runWrk(bin: string, run: WrkRun): Promise<{ result: WrkResult; wrkCpuSeconds: number }> {
  const args = [bin, `-t${run.threads}`, `-c${run.connections}`, `-d${run.seconds}s`, "--timeout", "5s", "-s", SCRIPT, run.url, "--", ...run.script];
  const proc = Bun.spawn(args, {
    env: { ...process.env, BENCH_API_KEY: run.apiKey ?? "", BENCH_WRK_THREADS: String(run.threads) },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  const line = out.split("\n").find((l) => l.startsWith("{"));
  if (code !== 0 || !line) throw new Error(`wrk exited with ${code}: ${err || out}`);
  const usage = proc.resourceUsage();
  return { result: JSON.parse(line) as WrkResult, wrkCpuSeconds: usage ? Number(usage.cpuTime.total) / 1e6 : 0 };
}
