import { apiPhases } from "./api-phases.ts";
import { startBenchStack } from "./bench-stack.ts";
import { deepPageTotal, shuffle, slicer } from "./helpers.ts";
import { measureLoad, type LoadSettings } from "./measure.ts";
import type { LoadRow } from "./report.ts";

/** The operations compared across engines. */
const COMPARED = ["create", "sdk-create", "get", "list", "cancel"];

/**
 * create, get, the deep page (also on one connection) and cancel through the whole stack, with
 * payments (and balance) on a throwaway PostgreSQL holding `rows` payments of one shop, seeded
 * through payments' store. The stack is stopped before this returns.
 */
export async function postgresApiRows(opts: { load: LoadSettings; rows: number; webhookUrl: string; logLevel: string; dir: string }): Promise<{ rows: LoadRow[]; seededSeconds: number }> {
  const wanted = { read: 20_000, warmCancel: 10_000, cancel: 60_000 };
  const scale = Math.min(1, opts.rows / (wanted.read + wanted.warmCancel + wanted.cancel));
  const size = (n: number) => Math.max(1, Math.floor(n * scale));
  console.error(`[bench] PostgreSQL: starting the stack and seeding ${opts.rows.toLocaleString("en-US")} payments`);
  const bench = await startBenchStack({
    rows: opts.rows,
    sampleSize: size(wanted.read) + size(wanted.warmCancel) + size(wanted.cancel),
    webhookUrl: opts.webhookUrl,
    logLevel: opts.logLevel,
    settleMs: 2000,
    postgres: true,
  });
  try {
    console.error(`[bench] PostgreSQL: seeded in ${bench.seeded.seconds.toFixed(0)} s`);
    const take = slicer(bench.seeded.sample);
    const read = take(size(wanted.read));
    const pools = {
      getIds: shuffle(read.map((p) => p.id)),
      orderIds: read.map((p) => p.orderId),
      warmupCancelIds: take(size(wanted.warmCancel)).map((p) => p.id),
      cancelIds: take(size(wanted.cancel)).map((p) => p.id),
    };
    const gatewayUrl = bench.stack.gateway;
    const apiKey = bench.shop.apiKey;
    const deepPage = Math.min(10_000, Math.floor(opts.rows / 100));
    const total = await deepPageTotal(gatewayUrl, apiKey, deepPage);
    const rows: LoadRow[] = [];
    const phases = apiPhases({ gatewayUrl, apiKey, dir: opts.dir, pools, runId: `pg-${Date.now()}`, deepPage }).filter((p) => COMPARED.includes(p.name));
    for (const phase of phases) {
      const label = phase.name === "list" ? `${phase.label}, total ${total.toLocaleString("en-US")}` : phase.label;
      rows.push(await measureLoad(opts.load, phase.name, label, bench.pids, phase.warmup, phase.run));
      if (phase.name === "list") rows.push(await measureLoad(opts.load, "list-1", `${phase.label}, 1 connection`, bench.pids, phase.warmup, phase.run, 1));
    }
    return { rows, seededSeconds: bench.seeded.seconds };
  } finally {
    await bench.stack.stop();
  }
}
