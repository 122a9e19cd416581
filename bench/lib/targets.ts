import type { LoadRow, TracingRun, Verdict, WebhookRow } from "./report.ts";
import { quantile } from "./stats.ts";

/** CPU µs one process (or group) spent per request of the row. */
export const cpuPerRequestUs = (row: LoadRow, process: string) => ((row.cpu[process] ?? NaN) / row.rps) * 1e6;

/**
 * The targets of the API rows, by row key: throughput as a share of ceiling (b) of the same run;
 * a merchant-initiated charge also by payments' CPU per charge against its CPU per create; the
 * deep page's latency.
 */
export function apiVerdicts(rows: LoadRow[], ceilingB: LoadRow): Map<string, Verdict> {
  const verdicts = new Map<string, Verdict>();
  const at = (key: string) => rows.find((x) => x.key === key);
  const share = (key: string, factor: number) => {
    const r = at(key);
    if (r) verdicts.set(key, { target: `≥ ${factor} × (b)`, pass: r.rps >= factor * ceilingB.rps && r.errors === 0 });
  };
  share("create", 0.33);
  share("sdk-create", 0.28);
  share("get", 0.66);
  share("lookup", 0.66);
  const [charge, create] = [at("charge"), at("create")];
  if (charge) {
    const cpuShare = create ? cpuPerRequestUs(charge, "payments") / cpuPerRequestUs(create, "payments") : NaN;
    verdicts.set("charge", {
      target: `≥ 0.05 × (b), payments ${Number.isFinite(cpuShare) ? cpuShare.toFixed(1) : "?"} ≤ 2 × create`,
      pass: charge.rps >= 0.05 * ceilingB.rps && charge.errors === 0 && cpuShare <= 2,
    });
  }
  const deep = at("list-1");
  if (deep) verdicts.set("list-1", { target: "p50 < 20 ms", pass: deep.p50Ms < 20 && deep.errors === 0 });
  return verdicts;
}

/** The offered rate of the webhook rows: this share of ceiling (b). */
export const WEBHOOK_RATE_OF_B = 0.05;

/**
 * Latency at the offered rate over many shops; no deferral for one shop's events at that rate
 * (its in-flight limit holds them in the dispatcher's memory, never back in the stream); the
 * maximum as a share of ceiling (b).
 */
export function webhookVerdicts(rows: WebhookRow[], ceilingB: LoadRow): WebhookRow[] {
  return rows.map((row) => {
    const w = row.result;
    if (row.key === "rate") return { ...row, target: [{ target: "p99 < 100 ms", pass: w.complete && w.p99Ms < 100 }] };
    if (row.key === "rate-1") return { ...row, target: [{ target: "no deferrals", pass: w.complete && w.deferrals === 0 }] };
    if (row.key === "max") return { ...row, target: [{ target: "≥ 0.2 × (b)", pass: w.complete && w.perSecond >= 0.2 * ceilingB.rps }] };
    return row;
  });
}

/** Tracing on at the default sampling keeps this share of each row's throughput with tracing off. */
export const TRACING_KEEPS = 0.85;

/** Per traced row: on ÷ off of the median throughputs. */
export function tracingVerdicts(runs: TracingRun[]): Map<string, Verdict> {
  const verdicts = new Map<string, Verdict>();
  const keys = [...new Set(runs.flatMap((r) => r.rows.map((x) => x.key)))];
  for (const key of keys) {
    const median = (mode: "off" | "on") => quantile(runs.filter((r) => r.mode === mode).flatMap((r) => r.rows.filter((x) => x.key === key).map((x) => x.rps)), 0.5);
    const rowsOf = runs.flatMap((r) => r.rows.filter((x) => x.key === key));
    verdicts.set(key, { target: `on ≥ ${TRACING_KEEPS} × off`, pass: median("on") >= TRACING_KEEPS * median("off") && rowsOf.every((x) => x.errors === 0) });
  }
  return verdicts;
}

/** PostgreSQL's share of SQLite's throughput (create ≥ 0.7 ×, cancel ≥ 0.5 ×); the deep page's p50 < 20 ms on both engines. */
export function engineVerdicts(sqlite: LoadRow[], pg: LoadRow[]): Map<string, Verdict> {
  const verdicts = new Map<string, Verdict>();
  const at = (rows: LoadRow[], key: string) => rows.find((x) => x.key === key);
  const share = (key: string, factor: number) => {
    const [lite, onPg] = [at(sqlite, key), at(pg, key)];
    if (lite && onPg) verdicts.set(key, { target: `≥ ${factor} × SQLite`, pass: onPg.rps >= factor * lite.rps && onPg.errors === 0 });
  };
  share("create", 0.7);
  share("cancel", 0.5);
  const [liteDeep, pgDeep] = [at(sqlite, "list-1"), at(pg, "list-1")];
  if (pgDeep) verdicts.set("list-1", { target: liteDeep ? "p50 < 20 ms on both" : "p50 < 20 ms", pass: pgDeep.p50Ms < 20 && pgDeep.errors === 0 && (!liteDeep || liteDeep.p50Ms < 20) });
  return verdicts;
}
