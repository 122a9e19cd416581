/**
 * `bun bench/webhooks.ts`: only the webhook rows of `bun run bench` (ceiling (b), then the offered
 * rate over 16 shops and on one shop, and the maximum), on a stack of its own without the seeded
 * million (the webhook path never reads a shop's other payments), for short runs and A/B rounds on
 * a shared machine. With BENCH_CPU_PROF=<dir> every service runs under Bun's sampling profiler
 * (bench/hot-path.ts says how to read it). Same BENCH_* settings as bench/run.ts; BENCH_WEBHOOK_SECONDS
 * defaults to 5 and BENCH_WEBHOOK_BURST to 10,000 here.
 */
import { benchPids, createPaymentsThroughApi, createShops } from "./lib/bench-stack.ts";
import { startNatsRoundTrip } from "./lib/ceilings.ts";
import { benchEnv, loadSettingsFromEnv, measureLoad } from "./lib/measure.ts";
import { costTable, cpuTable, webhookTable } from "./lib/report.ts";
import { WEBHOOK_RATE_OF_B, webhookVerdicts } from "./lib/targets.ts";
import { WebhookClock } from "./lib/webhook-clock.ts";
import { webhookRows } from "./lib/webhook-rows.ts";
import { Stack } from "../tests/harness/stack.ts";

const load = loadSettingsFromEnv();
const say = (s: string) => console.error(`[bench] ${s}`);
const seconds = benchEnv("BENCH_WEBHOOK_SECONDS", 5);
const profileDir = process.env.BENCH_CPU_PROF;
const clock = await WebhookClock.start();
if (profileDir) process.env.BUN_OPTIONS = `--cpu-prof --cpu-prof-md --cpu-prof-dir=${profileDir}`;
// The spec's per-key limits would cap the run at a few requests a second (bench/lib/bench-stack.ts says the same).
const stack = await Stack.start({
  services: ["directory", "payments", "gateway", "balance", "webhook-dispatcher"],
  env: { RATE_LIMIT_PER_METHOD: "1000000", RATE_LIMIT_PER_IP: "1000000", RATE_LIMIT_BALANCE: "1000000", LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? "info" },
});
delete process.env.BUN_OPTIONS;
try {
  clock.follow(stack.nc);
  const pids = benchPids(stack);
  const ceiling = await startNatsRoundTrip(stack.env.NATS_URL!);
  const ceilingB = await measureLoad(load, "b", "(b) HTTP → NATS call → noop serve → reply", { ...ceiling.pids, ...pids }, { url: ceiling.url, script: ["static"] });
  await ceiling.stop();
  const rate = Math.round(process.env.BENCH_WEBHOOK_RATE ? Number(process.env.BENCH_WEBHOOK_RATE) : WEBHOOK_RATE_OF_B * ceilingB.rps);
  const [shop] = await createShops(stack, 1, clock.url);
  const oneShop = await createPaymentsThroughApi(stack.gateway, [shop!], rate * seconds);
  const settings = { rate, seconds, burst: benchEnv("BENCH_WEBHOOK_BURST", 10_000), shops: benchEnv("BENCH_WEBHOOK_SHOPS", 16) };
  const webhooks = await webhookRows({ stack, pids, clock, oneShop, settings, say });
  console.log(
    [
      `payaccept bench, webhook rows only: ${navigator.hardwareConcurrency} cores, ceiling (b) ${Math.round(ceilingB.rps).toLocaleString("en-US")} req/s (wrk -c${load.connections}, ${load.seconds} s), Bun ${Bun.version}`,
      "",
      webhookTable(webhookVerdicts(webhooks.rows, ceilingB), ceilingB),
      "",
      cpuTable([ceilingB, ...webhooks.cpuRows]),
      "",
      costTable([ceilingB, ...webhooks.cpuRows]),
    ].join("\n"),
  );
} finally {
  await stack.stop();
  await clock.stop();
}
