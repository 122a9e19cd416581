/**
 * `bun bench/ceiling-ab.ts <tree> [<tree>…]`: ceiling (b) of each tree (a checkout of this
 * repository with its own node_modules: its platform, its nats.js and patches), measured in turn,
 * BENCH_AB_ROUNDS rounds, on one nats-server; prints per tree the median req/s and the median CPU
 * µs per call of the front, the responder and nats-server. On a machine whose speed moves by a
 * quarter within minutes, one run of each says nothing; alternated rounds and medians tell a change
 * of the RPC path (docs/performance.md, "Reading the figures on a shared machine"). Settings: BENCH_SECONDS
 * (4 here), BENCH_WARMUP_SECONDS (1), BENCH_CONNECTIONS (64), BENCH_AB_ROUNDS (6).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startNatsServer } from "../infra/launcher/nats-server.ts";
import { freePort } from "../tests/harness/ports.ts";
import { benchEnv, loadSettingsFromEnv, measureLoad } from "./lib/measure.ts";
import { listeningPort, startBenchServer, stopServers } from "./lib/spawn.ts";
import { quantile } from "./lib/stats.ts";

const trees = process.argv.slice(2).map((t) => resolve(t));
if (trees.length === 0) throw new Error("usage: bun bench/ceiling-ab.ts <tree> [<tree>…]");
const median = (values: number[]) => quantile(values, 0.5);
const rounds = benchEnv("BENCH_AB_ROUNDS", 6);
const load = { ...loadSettingsFromEnv(), seconds: benchEnv("BENCH_SECONDS", 4), warmupSeconds: benchEnv("BENCH_WARMUP_SECONDS", 1) };

const dataDir = mkdtempSync(join(tmpdir(), "payaccept-ceiling-ab-"));
const nats = await startNatsServer({ port: await freePort(), dataDir });
const runs = new Map<string, { rps: number; µs: number[] }[]>(trees.map((t) => [t, []]));
try {
  for (let round = 1; round <= rounds; round++) {
    for (const tree of trees) {
      const responder = await startBenchServer("nats-responder.ts", { NATS_URL: nats.url }, undefined, tree);
      const front = await startBenchServer("nats-front.ts", { NATS_URL: nats.url }, undefined, tree);
      try {
        const pids = { front: front.proc.pid, responder: responder.proc.pid, "nats-server": nats.proc.pid };
        const run = { url: `http://127.0.0.1:${listeningPort(front.line)}/`, script: ["static"] };
        const row = await measureLoad(load, "b", `(b) of ${tree}, round ${round} of ${rounds}`, pids, run);
        runs.get(tree)!.push({ rps: row.rps, µs: Object.keys(pids).map((name) => (row.cpu[name]! / row.rps) * 1e6) });
      } finally {
        await stopServers([front.proc, responder.proc]);
      }
    }
  }
} finally {
  await nats.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

console.log(`ceiling (b), ${rounds} alternated rounds of ${load.seconds} s, medians; CPU µs per call`);
console.log(["tree", "req/s", "front", "responder", "nats-server", "sum"].map((h, i) => (i === 0 ? h.padEnd(40) : h.padStart(12))).join(""));
for (const [tree, r] of runs) {
  const µs = [0, 1, 2].map((i) => median(r.map((x) => x.µs[i]!)));
  const sum = median(r.map((x) => x.µs.reduce((a, b) => a + b, 0)));
  console.log([tree.padEnd(40), ...[median(r.map((x) => x.rps)), ...µs, sum].map((v) => Math.round(v).toLocaleString("en-US").padStart(12))].join(""));
}
