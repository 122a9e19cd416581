/**
 * `bun bench/payments-postgres.ts`: only the PostgreSQL rows of `bun run bench` (create, get, the
 * deep page, cancel on a stack whose payments keep their rows on a throwaway PostgreSQL), for a
 * short run on a shared machine. Same BENCH_* settings as bench/run.ts.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { postgresApiRows } from "./lib/postgres-rows.ts";
import { engineTable } from "./lib/report.ts";
import { engineVerdicts } from "./lib/targets.ts";
import { benchEnv, loadSettingsFromEnv } from "./lib/measure.ts";
import { WebhookClock } from "./lib/webhook-clock.ts";

const load = loadSettingsFromEnv();
const rows = benchEnv("BENCH_ROWS", 1_000_000);
const dir = mkdtempSync(join(tmpdir(), "payaccept-bench-pg-"));
const clock = await WebhookClock.start();
try {
  const pg = await postgresApiRows({ load, rows, webhookUrl: clock.url, logLevel: process.env.BENCH_LOG_LEVEL ?? "info", dir });
  console.log(
    [
      `payaccept bench, PostgreSQL rows only: ${navigator.hardwareConcurrency} cores, wrk -t${load.threads} -c${load.connections}, ${load.seconds} s per run after ${load.warmupSeconds} s of warm-up,`,
      `seeded shop: ${rows.toLocaleString("en-US")} payments (seeded in ${pg.seededSeconds.toFixed(0)} s), Bun ${Bun.version}`,
      "",
      engineTable([], pg.rows, engineVerdicts([], pg.rows)),
    ].join("\n"),
  );
} finally {
  await clock.stop();
  rmSync(dir, { recursive: true, force: true });
}
