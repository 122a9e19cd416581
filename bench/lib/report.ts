import type { CpuShare } from "./proc.ts";
import { quantile } from "./stats.ts";
import type { WebhookResult } from "./webhook-scenarios.ts";

export type LoadRow = { key: string; label: string; rps: number; p50Ms: number; p99Ms: number; errors: number; cpu: CpuShare };
export type Verdict = { target: string; pass: boolean };
/** One pass over the traced operations with tracing off or on. */
export type TracingRun = { mode: "off" | "on"; rows: LoadRow[] };

const num = (v: number, digits = 0) => (Number.isFinite(v) ? v.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits }) : "-");
const ms = (v: number) => num(v, v < 10 ? 2 : 1);
/** Width of the first column: the longest label. */
const LABEL = 50;
const row = (cells: string[], widths: number[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");

/** The load table: every figure also as a ratio of the two ceilings. */
export function loadTable(rows: LoadRow[], ceilingA: LoadRow, ceilingB: LoadRow, targets: Map<string, Verdict>): string {
  const widths = [LABEL, 9, 8, 8, 6, 6, 7, 38, 6];
  const out = [row(["", "req/s", "p50 ms", "p99 ms", "×(a)", "×(b)", "errors", "target", ""], widths)];
  for (const r of rows) {
    const t = targets.get(r.key);
    out.push(
      row(
        [r.label, num(r.rps), ms(r.p50Ms), ms(r.p99Ms), num(r.rps / ceilingA.rps, 2), num(r.rps / ceilingB.rps, 2), num(r.errors), t?.target ?? "", t ? (t.pass ? "PASS" : "MISS") : ""],
        widths,
      ),
    );
  }
  return out.join("\n");
}

export type WebhookRow = { key: string; label: string; result: WebhookResult & { deferrals: number; attemptMs: number }; target?: Verdict[] };

export function webhookTable(rows: WebhookRow[], ceilingB: LoadRow): string {
  const widths = [LABEL, 9, 8, 8, 10, 11, 9, 10, 6, 30];
  const out = [row(["webhook pipeline (final status → delivery)", "events/s", "p50 ms", "p99 ms", "offered/s", "delivered", "deferrals", "attempt ms", "×(b)", "targets"], widths)];
  for (const { label, result: w, target } of rows) {
    const verdicts = (target ?? []).map((v) => `${v.target} ${v.pass ? "PASS" : "MISS"}`).join("; ");
    out.push(
      row(
        [label, num(w.perSecond), ms(w.p50Ms), ms(w.p99Ms), num(w.offeredPerSecond), `${w.delivered}/${w.events}`, num(w.deferrals), ms(w.attemptMs), num(w.perSecond / ceilingB.rps, 2), verdicts],
        widths,
      ),
    );
  }
  return out.join("\n");
}

/** Spec of this bench: every service at most this much resident memory when idle. */
export const RSS_LIMIT_MIB = 80;

/** `reference`: what Bun itself takes (the bare server), for scale. */
export function rssTable(rss: Record<string, number>, reference: number, limitMiB = RSS_LIMIT_MIB): string {
  const widths = [LABEL, 9, 16, 6];
  const out = [row(["idle RSS (VmRSS after start, before load)", "MiB", "target", ""], widths)];
  for (const [name, mib] of Object.entries(rss)) out.push(row([name, num(mib, 1), `≤ ${limitMiB} MiB`, mib <= limitMiB ? "PASS" : "MISS"], widths));
  out.push(row(["(for scale: the bare Bun server of (a))", num(reference, 1), "", ""], widths));
  return out.join("\n");
}

const MACHINE = ["bench", "machine busy", "others", "steal"];

/** CPU of each process during each run, in cores (2.00 = the whole machine), and the machine's. */
export function cpuTable(rows: LoadRow[]): string {
  const names = [...new Set(rows.flatMap((r) => Object.keys(r.cpu)))].filter((n) => !MACHINE.includes(n)).concat(MACHINE);
  return processTable("CPU during the run (cores of 2)", rows, names, (r, n) => num(r.cpu[n]!, 2));
}

/** The same as CPU time per request (per event for the webhook runs): what each process spends on one. */
export function costTable(rows: LoadRow[]): string {
  const names = [...new Set(rows.flatMap((r) => Object.keys(r.cpu)))].filter((n) => !MACHINE.includes(n));
  return processTable("CPU µs per request (per event)", rows, names, (r, n) => num((r.cpu[n]! / r.rps) * 1e6));
}

function processTable(title: string, rows: LoadRow[], names: string[], cell: (r: LoadRow, name: string) => string): string {
  const widths = [LABEL, ...names.map((n) => Math.max(7, n.length))];
  const out = [row([title, ...names], widths)];
  for (const r of rows) out.push(row([r.label, ...names.map((n) => (r.cpu[n] === undefined ? "" : cell(r, n)))], widths));
  return out.join("\n");
}

/**
 * The API rows on both engines side by side, with PostgreSQL's share of SQLite's throughput; a
 * run of the PostgreSQL rows alone leaves the SQLite columns empty.
 */
export function engineTable(sqlite: LoadRow[], pg: LoadRow[], targets: Map<string, Verdict>): string {
  const widths = [LABEL, 13, 13, 8, 12, 12, 6, 30];
  const out = [row(["same API rows, payments on SQLite | PostgreSQL", "SQLite req/s", "PG req/s", "PG/SQL", "SQLite p50", "PG p50 ms", "PG err", "target"], widths)];
  for (const r of pg) {
    const lite = sqlite.find((x) => x.key === r.key);
    const t = targets.get(r.key);
    out.push(
      row(
        [
          r.label,
          lite ? num(lite.rps) : "-",
          num(r.rps),
          lite ? num(r.rps / lite.rps, 2) : "-",
          lite ? ms(lite.p50Ms) : "-",
          ms(r.p50Ms),
          num(r.errors),
          t ? `${t.target} ${t.pass ? "PASS" : "MISS"}` : "",
        ],
        widths,
      ),
    );
  }
  return out.join("\n");
}

/** CPU of the stack's processes (the load generator, this process and the machine's figures left out) per request, in µs. */
const stackCpuUs = (r: LoadRow) =>
  (Object.entries(r.cpu)
    .filter(([n]) => !MACHINE.includes(n) && n !== "wrk")
    .reduce((sum, [, v]) => sum + v, 0) /
    r.rps) *
  1e6;

/**
 * The traced rows: each operation's median over the rounds with tracing off and on, the share of
 * throughput kept, and the stack's CPU per request (every service and nats-server), so the cost
 * of tracing shows both as lost throughput and as CPU spent.
 */
export function tracingTable(runs: TracingRun[], rounds: number, targets: Map<string, Verdict>): string {
  const widths = [LABEL, 10, 10, 7, 8, 8, 9, 9, 10, 10, 22];
  const out = [row([`tracing off | on (median of ${rounds} rounds each)`, "off req/s", "on req/s", "on/off", "off p50", "on p50", "off p99", "on p99", "off CPU µs", "on CPU µs", "target"], widths)];
  const keys = [...new Set(runs.flatMap((r) => r.rows.map((x) => x.key)))];
  for (const key of keys) {
    const of = (mode: "off" | "on") => runs.filter((r) => r.mode === mode).flatMap((r) => r.rows.filter((x) => x.key === key));
    const med = (rows: LoadRow[], f: (r: LoadRow) => number) => quantile(rows.map(f), 0.5);
    const [off, on] = [of("off"), of("on")];
    const label = off[0]!.label.replace(/, tracing off$/, "");
    out.push(
      row(
        [
          label,
          num(med(off, (r) => r.rps)),
          num(med(on, (r) => r.rps)),
          num(med(on, (r) => r.rps) / med(off, (r) => r.rps), 2),
          ms(med(off, (r) => r.p50Ms)),
          ms(med(on, (r) => r.p50Ms)),
          ms(med(off, (r) => r.p99Ms)),
          ms(med(on, (r) => r.p99Ms)),
          num(med(off, stackCpuUs)),
          num(med(on, stackCpuUs)),
          targets.has(key) ? `${targets.get(key)!.target} ${targets.get(key)!.pass ? "PASS" : "MISS"}` : "",
        ],
        widths,
      ),
    );
  }
  return out.join("\n");
}
