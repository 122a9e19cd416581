import type { LoadRow, Verdict, WebhookRow } from "./report.ts";

/** The targets of the API rows, by row key: throughput as a share of ceiling (b), the deep page's latency. */
export function apiVerdicts(rows: LoadRow[], ceilingB: LoadRow): Map<string, Verdict> {
  const verdicts = new Map<string, Verdict>();
  const share = (key: string, factor: number) => {
    const r = rows.find((x) => x.key === key);
    if (r) verdicts.set(key, { target: `≥ ${factor} × (b)`, pass: r.rps >= factor * ceilingB.rps && r.errors === 0 });
  };
  share("create", 0.5);
  share("sdk-create", 0.35);
  share("get", 0.7);
  const deep = rows.find((x) => x.key === "list-1");
  if (deep) verdicts.set("list-1", { target: "p50 < 20 ms", pass: deep.p50Ms < 20 && deep.errors === 0 });
  return verdicts;
}

/** Latency at the offered rate over many shops; throughput at the maximum. One shop alone is shown without a verdict. */
export function webhookVerdicts(rows: WebhookRow[]): WebhookRow[] {
  return rows.map((row) => {
    const w = row.result;
    if (row.key === "rate") return { ...row, target: [{ target: "p99 < 100 ms", pass: w.complete && w.p99Ms < 100 }] };
    if (row.key === "max") return { ...row, target: [{ target: "≥ 2,000/s", pass: w.complete && w.perSecond >= 2000 }] };
    return row;
  });
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
