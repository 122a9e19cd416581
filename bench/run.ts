/**
 * `bun run bench`: the service's performance in one table (docs/performance.md explains it).
 * 1. Through the whole stack (gateway → NATS → payments/balance), each API operation at a fixed
 *    concurrency for a bounded time, on a shop seeded with 1,000,000 payments; last, merchant-
 *    initiated charges of a saved card (through the acquirer emulator; `bun bench/charges.ts`
 *    runs that row alone).
 * 2. The webhook pipeline: final status → delivery at a fixed offered rate, and at its maximum.
 * 3. The dashboard overview's aggregates for a month of the seeded shop (rpcs.payments.stats and
 *    rpcs.webhooks.health), one page at a time.
 * 4. Two ceilings measured in the same run: (a) a bare Bun HTTP server, (b) HTTP → NATS → a
 *    responder doing nothing; every figure is also printed as their ratio, next to the targets.
 * 5. create, get, the deep page and cancel again on a second stack whose payments (and balance)
 *    keep their rows on a throwaway PostgreSQL seeded the same way, next to the SQLite figures
 *    (BENCH_POSTGRES=0 leaves it out; `bun bench/payments-postgres.ts` runs it alone).
 * 6. create, get and cancel with tracing off and on (exported over OTLP/HTTP to a local sink at the
 *    default sampling), alternating, BENCH_TRACING_ROUNDS rounds each (BENCH_TRACING=0 leaves it out;
 *    `bun bench/tracing.ts` runs it alone).
 * All traffic is on 127.0.0.1; every loop is bounded in count and time. Settings: BENCH_* below.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { apiPhases } from "./lib/api-phases.ts";
import { startBenchStack } from "./lib/bench-stack.ts";
import { startBareHttp, startNatsRoundTrip } from "./lib/ceilings.ts";
import { deepPageTotal, shuffle, slicer, waitDrained } from "./lib/helpers.ts";
import { overviewLatency } from "./lib/overview-rpc.ts";
import { measureLoad } from "./lib/measure.ts";
import { postgresApiRows } from "./lib/postgres-rows.ts";
import { saveBenchCard } from "./lib/saved-card.ts";
import { tracingRows } from "./lib/tracing-rows.ts";
import { rssMiB } from "./lib/proc.ts";
import { costTable, cpuTable, engineTable, loadTable, rssTable, tracingTable, webhookTable, type LoadRow } from "./lib/report.ts";
import { apiVerdicts, engineVerdicts, tracingVerdicts, WEBHOOK_RATE_OF_B, webhookVerdicts } from "./lib/targets.ts";
import { WebhookClock } from "./lib/webhook-clock.ts";
import { webhookRows } from "./lib/webhook-rows.ts";
import { ensureWrk } from "./lib/wrk.ts";

const env = (name: string, dflt: number) => Number(process.env[name] ?? dflt);
const cfg = {
  rows: env("BENCH_ROWS", 1_000_000),
  seconds: env("BENCH_SECONDS", 8),
  warmupSeconds: env("BENCH_WARMUP_SECONDS", 2),
  connections: env("BENCH_CONNECTIONS", 64),
  threads: env("BENCH_WRK_THREADS", 1),
  /** The offered webhook rate; unset, WEBHOOK_RATE_OF_B × ceiling (b) of the run. */
  webhookRate: process.env.BENCH_WEBHOOK_RATE === undefined ? undefined : Number(process.env.BENCH_WEBHOOK_RATE),
  webhookSeconds: env("BENCH_WEBHOOK_SECONDS", 10),
  burst: env("BENCH_WEBHOOK_BURST", 20_000),
  shops: env("BENCH_WEBHOOK_SHOPS", 16),
  logLevel: process.env.BENCH_LOG_LEVEL ?? "info",
  postgres: process.env.BENCH_POSTGRES !== "0",
  tracing: process.env.BENCH_TRACING !== "0",
  tracingRounds: env("BENCH_TRACING_ROUNDS", 2),
};
/** The most a run offers per second when the rate follows ceiling (b): 0.05 × (b) on the fastest machine measured. */
const MAX_WEBHOOK_RATE = 2000;
/** Seeded payments each use takes (the sample is spread evenly over the whole shop); a small BENCH_ROWS shrinks them all alike. */
const POOLS = (() => {
  const wanted = { webhook: (cfg.webhookRate ?? MAX_WEBHOOK_RATE) * cfg.webhookSeconds, read: 20_000, warmCancel: 10_000, cancel: 60_000 };
  const scale = Math.min(1, cfg.rows / Object.values(wanted).reduce((a, b) => a + b, 0));
  return Object.fromEntries(Object.entries(wanted).map(([k, n]) => [k, Math.max(1, Math.floor(n * scale))])) as typeof wanted;
})();
const say = (s: string) => console.error(`[bench] ${s}`);

const wrk = ensureWrk();
const workDir = mkdtempSync(join(tmpdir(), "payaccept-bench-"));
const clock = await WebhookClock.start();
say(`starting the stack and seeding ${cfg.rows.toLocaleString("en-US")} payments`);
const sampleSize = Object.values(POOLS).reduce((a, b) => a + b, 0);
const bench = await startBenchStack({ rows: cfg.rows, sampleSize, webhookUrl: clock.url, logLevel: cfg.logLevel, settleMs: 5000 }).catch(async (e) => {
  await clock.stop(); // the receiver is a process of its own
  throw e;
});
say(`seeded in ${bench.seeded.seconds.toFixed(0)} s; idle RSS measured`);
clock.follow(bench.stack.nc);
let sqliteStack: Promise<void> | undefined;
const stopSqliteStack = () => (sqliteStack ??= bench.stack.stop());

try {
  const rows: LoadRow[] = [];
  const cpuRows: LoadRow[] = [];
  const load = { wrk, ...cfg };
  const measure = async (key: string, label: string, pids: Record<string, number | number[]>, warmup: Parameters<typeof measureLoad>[4], run = warmup, connections = cfg.connections) => {
    const row = await measureLoad(load, key, label, pids, warmup, run, connections);
    rows.push(row);
    cpuRows.push(row);
    return row;
  };

  const bare = await startBareHttp();
  await Bun.sleep(1000);
  const bareRssMiB = rssMiB(bare.pids["bare-http"]!);
  const ceilingA = await measure("a", "(a) bare Bun HTTP, tiny JSON", { ...bare.pids, ...bench.pids }, { url: bare.url, script: ["static"] });
  await bare.stop();
  const natsRoundTrip = await startNatsRoundTrip(bench.stack.env.NATS_URL!);
  const ceilingB = await measure("b", "(b) HTTP → NATS call → noop serve → reply", { ...natsRoundTrip.pids, ...bench.pids }, { url: natsRoundTrip.url, script: ["static"] });
  await natsRoundTrip.stop();

  // A pool smaller than a run needs is gone round again by the wrk script (a repeated cancel
  // answers 200 without a second event).
  const take = slicer(bench.seeded.sample);
  const oneShopPayments = take(POOLS.webhook).map((p) => ({ apiKey: bench.shop.apiKey, id: p.id }));
  const read = take(POOLS.read);
  const pools = {
    getIds: shuffle(read.map((p) => p.id)),
    orderIds: shuffle(read.map((p) => p.orderId)),
    warmupCancelIds: take(POOLS.warmCancel).map((p) => p.id),
    cancelIds: take(POOLS.cancel).map((p) => p.id),
  };
  const gatewayUrl = bench.stack.gateway;
  const apiKey = bench.shop.apiKey;
  // Page 10000 × 100 is the deepest the spec allows; a smaller BENCH_ROWS gets its own last full page.
  const deepPage = Math.min(10_000, Math.floor(cfg.rows / 100));
  const total = await deepPageTotal(gatewayUrl, apiKey, deepPage);
  const chargeMethodId = await saveBenchCard(bench.stack, apiKey);
  for (const phase of apiPhases({ gatewayUrl, apiKey, dir: workDir, pools, runId: String(Date.now()), deepPage, chargeMethodId })) {
    // The cancels' events still on their way through balance and the dispatcher would be counted as the charges' CPU.
    if (phase.name === "charge") await waitDrained(bench.stack.url("payments"), clock, 180_000);
    const label = phase.name === "list" ? `${phase.label}, total ${total.toLocaleString("en-US")}` : phase.label;
    await measure(phase.name, label, bench.pids, phase.warmup, phase.run);
    // The latency of one deep page alone: at 64 connections its p50 is mostly the queue (64 ÷ req/s).
    if (phase.name === "list") await measure("list-1", `${phase.label}, 1 connection`, bench.pids, phase.warmup, phase.run, 1);
  }

  say("dashboard overview: the month's aggregates of the seeded shop");
  const overview = await overviewLatency(bench.stack, bench.shop.shopId);

  say("waiting until the webhooks of the cancels are delivered");
  const drained = await waitDrained(bench.stack.url("payments"), clock, 180_000);
  const rate = Math.round(cfg.webhookRate ?? Math.min(MAX_WEBHOOK_RATE, WEBHOOK_RATE_OF_B * ceilingB.rps));
  const webhooks = await webhookRows({
    stack: bench.stack,
    pids: bench.pids,
    clock,
    oneShop: oneShopPayments,
    settings: { rate, seconds: cfg.webhookSeconds, burst: cfg.burst, shops: cfg.shops },
    say,
  });
  cpuRows.push(...webhooks.cpuRows);

  // The SQLite stack is stopped first, so that its leftover work (webhooks still being delivered) takes no CPU from the PostgreSQL rows.
  await stopSqliteStack();
  const pg = cfg.postgres ? await postgresApiRows({ load, rows: cfg.rows, webhookUrl: clock.url, logLevel: cfg.logLevel, dir: workDir }) : undefined;
  const traced = cfg.tracing
    ? await tracingRows({ load, rows: cfg.rows, webhookUrl: clock.url, logLevel: cfg.logLevel, dir: workDir, rounds: cfg.tracingRounds })
    : undefined;

  console.log(
    [
      `payaccept bench: ${navigator.hardwareConcurrency} cores, wrk -t${cfg.threads} -c${cfg.connections}, ${cfg.seconds} s per run after ${cfg.warmupSeconds} s of warm-up,`,
      `seeded shop: ${cfg.rows.toLocaleString("en-US")} payments (seeded in ${bench.seeded.seconds.toFixed(0)} s), LOG_LEVEL=${cfg.logLevel}, Bun ${Bun.version}`,
      "",
      loadTable(rows, ceilingA, ceilingB, apiVerdicts(rows, ceilingB)),
      "",
      webhookTable(webhookVerdicts(webhooks.rows, ceilingB), ceilingB),
      "",
      pg ? `${engineTable(rows, pg.rows, engineVerdicts(rows, pg.rows))}\n(PostgreSQL seeded in ${pg.seededSeconds.toFixed(0)} s)\n` : "",
      traced ? `${tracingTable(traced.runs, cfg.tracingRounds, tracingVerdicts(traced.runs))}\n(spans exported while on: ${traced.exported.batches.toLocaleString("en-US")} batches, ${(traced.exported.bytes / 1e6).toFixed(1)} MB of OTLP)\n` : "",
      `dashboard overview, last 30 days of the seeded shop (rpcs.payments.stats + rpcs.webhooks.health, one page at a time): ` +
        `p50 ${overview.p50Ms.toFixed(2)} ms, p99 ${overview.p99Ms.toFixed(2)} ms (target p50 < 100 ms: ${overview.p50Ms < 100 ? "met" : "MISSED"})`,
      drained ? "" : "NOTE: the webhooks of the cancel run were not all delivered when the webhook runs began.",
      cpuRows.some((r) => r.cpu.others! > 0.15) ? "WARNING: other processes used this machine during some runs (CPU column 'others'); those figures are low.\n" : "",
      rssTable(bench.idleRssMiB, bareRssMiB),
      "",
      cpuTable(cpuRows),
      "",
      costTable(cpuRows),
    ].join("\n"),
  );
} finally {
  await clock.stop();
  await stopSqliteStack();
  rmSync(workDir, { recursive: true, force: true });
}
