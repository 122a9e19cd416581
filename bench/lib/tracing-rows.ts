import { apiPhases } from "./api-phases.ts";
import { benchPids, readModelOn, startBenchStack } from "./bench-stack.ts";
import { shuffle, slicer } from "./helpers.ts";
import { measureLoad, type LoadSettings } from "./measure.ts";
import type { LoadRow, TracingRun } from "./report.ts";
import { listeningPort, startBenchServer, stopServers } from "./spawn.ts";
import { SERVICE_NAMES } from "../../infra/launcher/services.ts";

/** The operations measured with tracing off and on: a read, a write, and a write whose event goes on to the webhook. */
const TRACED = ["create", "get", "cancel"];

/**
 * create, get and cancel with tracing off (no endpoint: the default) and on (every service
 * exporting to a local OTLP/HTTP sink at the default sampling and protocol), `rounds` times each,
 * alternating off and on on one stack, so that a drift of the machine's load shows in both alike.
 * Every service is restarted with the other setting between runs. The stack is stopped before
 * this returns.
 */
export async function tracingRows(opts: { load: LoadSettings; rows: number; webhookUrl: string; logLevel: string; dir: string; rounds: number }): Promise<{ runs: TracingRun[]; exported: { batches: number; bytes: number } }> {
  const wanted = { read: 20_000, cancel: 20_000 * opts.rounds * 2 + 10_000 };
  const scale = Math.min(1, opts.rows / (wanted.read + wanted.cancel));
  const size = (n: number) => Math.max(1, Math.floor(n * scale));
  console.error(`[bench] tracing: starting the stack and seeding ${opts.rows.toLocaleString("en-US")} payments`);
  const bench = await startBenchStack({ rows: opts.rows, sampleSize: size(wanted.read) + size(wanted.cancel), webhookUrl: opts.webhookUrl, logLevel: opts.logLevel, settleMs: 2000 });
  const sink = await startBenchServer("otlp-sink.ts");
  const sinkUrl = `http://127.0.0.1:${listeningPort(sink.line)}`;
  try {
    const take = slicer(bench.seeded.sample);
    const read = take(size(wanted.read));
    const warmCancel = take(size(10_000)).map((p) => p.id);
    const runs: TracingRun[] = [];
    for (let round = 0; round < opts.rounds; round++) {
      for (const mode of ["off", "on"] as const) {
        console.error(`[bench] tracing ${mode} (round ${round + 1} of ${opts.rounds}): restarting every service`);
        // On as a deployment turns it on: the endpoint alone, the default sampling and protocol.
        if (mode === "on") Object.assign(bench.stack.env, { OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl });
        else delete bench.stack.env.OTEL_EXPORTER_OTLP_ENDPOINT;
        for (const name of SERVICE_NAMES) await bench.stack.restart(name);
        await Bun.sleep(2000);
        await readModelOn(bench.stack);
        const pools = { getIds: shuffle(read.map((p) => p.id)), orderIds: [], warmupCancelIds: warmCancel, cancelIds: take(size(20_000)).map((p) => p.id) };
        const phases = apiPhases({ gatewayUrl: bench.stack.gateway, apiKey: bench.shop.apiKey, dir: opts.dir, pools, runId: `tracing-${mode}-${round}-${Date.now()}`, deepPage: 1 });
        const rows: LoadRow[] = [];
        for (const phase of phases.filter((p) => TRACED.includes(p.name))) {
          rows.push(await measureLoad(opts.load, phase.name, `${phase.label}, tracing ${mode}`, benchPids(bench.stack), phase.warmup, phase.run));
        }
        runs.push({ mode, rows });
      }
    }
    const exported = (await (await fetch(sinkUrl)).json()) as { batches: number; bytes: number };
    return { runs, exported };
  } finally {
    await stopServers([sink.proc]);
    await bench.stack.stop();
  }
}
