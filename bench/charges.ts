/**
 * `bun bench/charges.ts`: only the merchant-initiated charge row of `bun run bench`, on a stack of
 * its own without the seeded million (a charge never reads the shop's other payments), for a short
 * run on a shared machine. Same BENCH_* settings as bench/run.ts. Each request: payments writes the
 * charge PENDING, asks the acquirer emulator (its own SQLite write and callback), commits SUCCESS
 * and answers 201; the webhook dispatcher and the balance take its event. With BENCH_CPU_PROF=<dir>
 * every service runs under Bun's sampling profiler and writes its profile there when the stack
 * stops (`bun bench/profile-shares.ts <dir>/*.cpuprofile` reads them).
 */
import { chargePhase } from "./lib/api-phases.ts";
import { loadSettingsFromEnv, measureLoad } from "./lib/measure.ts";
import { cpuTable, costTable } from "./lib/report.ts";
import { saveBenchCard } from "./lib/saved-card.ts";
import { Stack } from "../tests/harness/stack.ts";

const load = loadSettingsFromEnv();
const profileDir = process.env.BENCH_CPU_PROF;
// Bun reads flags from BUN_OPTIONS too: every service process of the stack inherits them.
if (profileDir) process.env.BUN_OPTIONS = `--cpu-prof --cpu-prof-md --cpu-prof-dir=${profileDir}`;
// The spec's per-key limits would cap the run at 10 req/s (bench/lib/bench-stack.ts says the same).
const stack = await Stack.start({
  env: { RATE_LIMIT_PER_METHOD: "1000000", RATE_LIMIT_PER_IP: "1000000", RATE_LIMIT_BALANCE: "1000000", LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? "info" },
});
delete process.env.BUN_OPTIONS;
try {
  const shop = await stack.createShop({ name: "Bench charges" });
  const methodId = await saveBenchCard(stack, shop.apiKey);
  const pid = (n: Parameters<Stack["service"]>[0]) => stack.service(n).proc!.pid;
  const pids = {
    gateway: pid("gateway"),
    payments: pid("payments"),
    "acquirer-emulator": pid("acquirer-emulator"),
    balance: pid("balance"),
    "webhook-dispatcher": pid("webhook-dispatcher"),
    // The directory stores each charge's audit entry.
    directory: pid("directory"),
    "nats-server": stack.nats.proc.pid,
    // Receipts takes each SUCCESS event.
    receipts: pid("receipts"),
    "other services": [pid("dashboard"), pid("paypage"), pid("cash-register-emulator")],
  };
  const phase = chargePhase(stack.gateway, shop.apiKey, String(Date.now()), methodId);
  const row = await measureLoad(load, phase.name, phase.label, pids, phase.warmup, phase.run);
  console.log(
    [
      `payaccept bench, merchant-initiated charges only: ${navigator.hardwareConcurrency} cores, wrk -t${load.threads} -c${load.connections}, ${load.seconds} s after ${load.warmupSeconds} s of warm-up, Bun ${Bun.version}`,
      `${row.label}: ${row.rps.toFixed(0)} req/s, p50 ${row.p50Ms.toFixed(1)} ms, p99 ${row.p99Ms.toFixed(1)} ms, errors ${row.errors}`,
      "",
      cpuTable([row]),
      "",
      costTable([row]),
    ].join("\n"),
  );
} finally {
  await stack.stop();
}
