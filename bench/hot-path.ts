/**
 * `bun bench/hot-path.ts`: the hot path's rows only, for comparing one change of the request
 * path with the code before it on a shared machine: ceiling (b), create, the SDK's create (with
 * an Idempotency-Key), get, lookup by orderId and cancel on one stack, BENCH_HOT_ROUNDS rounds (ceiling (b) measured
 * again in each), and each process's CPU per request, which the machine's other load moves less
 * than the throughput. With BENCH_CPU_PROF=<dir> every service runs under Bun's sampling profiler
 * and writes its profile there (`.cpuprofile` and a markdown summary) when the stack stops.
 * BENCH_HOT_POSTGRES=1 keeps payments' (and balance's) rows on a throwaway PostgreSQL instead.
 * BENCH_HOT_ONLY=create,get measures only those rows (and ceiling (b)): a profile of one load.
 * Same BENCH_* settings as bench/run.ts; BENCH_ROWS defaults to 20,000 here.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { apiPhases } from "./lib/api-phases.ts";
import { startBenchStack } from "./lib/bench-stack.ts";
import { startNatsRoundTrip } from "./lib/ceilings.ts";
import { shuffle, slicer } from "./lib/helpers.ts";
import { benchEnv, loadSettingsFromEnv, measureLoad } from "./lib/measure.ts";
import { withChildren } from "./lib/proc.ts";
import { costTable, loadTable, type LoadRow } from "./lib/report.ts";
import { apiVerdicts } from "./lib/targets.ts";
import { WebhookClock } from "./lib/webhook-clock.ts";
import type { ServiceName } from "../infra/launcher/services.ts";

const MEASURED = process.env.BENCH_HOT_ONLY?.split(",") ?? ["create", "sdk-create", "get", "lookup", "cancel"];
/**
 * Only the services of these rows: the whole stack takes longer to start than a busy shared
 * machine allows (its readiness waits of 30 s ran out). The cancels' events stay in the stream
 * (no balance, no dispatcher), so cancel here is the API's part of it only.
 */
const HOT_PATH_SERVICES: ServiceName[] = ["directory", "payments", "gateway"];

const load = loadSettingsFromEnv();
const rows = benchEnv("BENCH_ROWS", 20_000);
const rounds = benchEnv("BENCH_HOT_ROUNDS", 1);
const profileDir = process.env.BENCH_CPU_PROF;
const dir = mkdtempSync(join(tmpdir(), "payaccept-bench-hot-"));
// The cancels' webhooks go to a receiver of their own, so that failing deliveries add no retries to the load.
const clock = await WebhookClock.start();
// Bun reads flags from BUN_OPTIONS too: every service process of the stack inherits them.
if (profileDir) process.env.BUN_OPTIONS = `--cpu-prof --cpu-prof-md --cpu-prof-dir=${profileDir}`;
const bench = await startBenchStack({ rows, sampleSize: Math.floor(rows * 0.9), webhookUrl: clock.url, logLevel: process.env.BENCH_LOG_LEVEL ?? "info", settleMs: 2000, postgres: process.env.BENCH_HOT_POSTGRES === "1", services: HOT_PATH_SERVICES });
delete process.env.BUN_OPTIONS;
try {
  const take = slicer(bench.seeded.sample);
  const read = take(Math.floor(rows * 0.3));
  const warmCancel = take(Math.floor(rows * 0.1)).map((p) => p.id);
  const out: string[] = [];
  // PostgreSQL's server is a process of its own, with a backend per connection: its CPU counts too.
  const postmaster = bench.stack.pg && Number(readFileSync(join(bench.stack.pg.dir, "db", "postmaster.pid"), "utf8").split("\n")[0]);
  const pids = () => (postmaster ? { ...bench.pids, postgres: withChildren(postmaster) } : bench.pids);
  for (let round = 0; round < rounds; round++) {
    const ceiling = await startNatsRoundTrip(bench.stack.env.NATS_URL!);
    const ceilingB = await measureLoad(load, "b", "(b) HTTP → NATS call → noop serve → reply", { ...ceiling.pids, ...bench.pids }, { url: ceiling.url, script: ["static"] });
    await ceiling.stop();
    const pools = { getIds: shuffle(read.map((p) => p.id)), orderIds: shuffle(read.map((p) => p.orderId)), warmupCancelIds: warmCancel, cancelIds: take(Math.floor(rows * 0.4 / rounds)).map((p) => p.id) };
    const phases = apiPhases({ gatewayUrl: bench.stack.gateway, apiKey: bench.shop.apiKey, dir, pools, runId: `hot-${round}-${Date.now()}`, deepPage: 1 });
    const measured: LoadRow[] = [ceilingB];
    for (const phase of phases.filter((p) => MEASURED.includes(p.name))) measured.push(await measureLoad(load, phase.name, phase.label, pids, phase.warmup, phase.run));
    out.push(`round ${round + 1} of ${rounds}`, loadTable(measured, ceilingB, ceilingB, apiVerdicts(measured, ceilingB)), "", costTable(measured), "");
  }
  console.log(out.join("\n"));
} finally {
  await bench.stack.stop();
  await clock.stop();
  rmSync(dir, { recursive: true, force: true });
}
