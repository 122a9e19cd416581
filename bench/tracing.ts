/**
 * `bun bench/tracing.ts`: only the tracing rows of `bun run bench` (create, get and cancel with
 * tracing off and on, alternating, BENCH_TRACING_ROUNDS rounds each), for a short run on a shared
 * machine. Same BENCH_* settings as bench/run.ts; BENCH_ROWS defaults to 100,000 here.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { tracingTable } from "./lib/report.ts";
import { tracingVerdicts } from "./lib/targets.ts";
import { tracingRows } from "./lib/tracing-rows.ts";
import { benchEnv, loadSettingsFromEnv } from "./lib/measure.ts";
import { WebhookClock } from "./lib/webhook-clock.ts";

const load = loadSettingsFromEnv();
const rows = benchEnv("BENCH_ROWS", 100_000);
const rounds = benchEnv("BENCH_TRACING_ROUNDS", 2);
const dir = mkdtempSync(join(tmpdir(), "payaccept-bench-tracing-"));
const clock = await WebhookClock.start();
try {
  const traced = await tracingRows({ load, rows, webhookUrl: clock.url, logLevel: process.env.BENCH_LOG_LEVEL ?? "info", dir, rounds });
  console.log(
    [
      `payaccept bench, tracing rows only: ${navigator.hardwareConcurrency} cores, wrk -t${load.threads} -c${load.connections}, ${load.seconds} s per run after ${load.warmupSeconds} s of warm-up,`,
      `seeded shop: ${rows.toLocaleString("en-US")} payments, Bun ${Bun.version}`,
      "",
      tracingTable(traced.runs, rounds, tracingVerdicts(traced.runs)),
      `(spans exported while on: ${traced.exported.batches.toLocaleString("en-US")} batches, ${(traced.exported.bytes / 1e6).toFixed(1)} MB of OTLP)`,
    ].join("\n"),
  );
} finally {
  await clock.stop();
  rmSync(dir, { recursive: true, force: true });
}
