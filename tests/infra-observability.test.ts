import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { ROOT } from "../infra/launcher/services.ts";
import {
  alertRules,
  dashboardQueries,
  dashboards,
  GRAFANA_DIR,
  panelsOf,
  prometheusBinary,
  PROMETHEUS_DIR,
  promql,
  recordedNames,
  ruleFiles,
  rules,
} from "./harness/observability.ts";

/**
 * The files of infra/prometheus and infra/grafana, checked without a stack: Prometheus's own
 * promtool validates the config and the rules and runs the rules' unit tests; every alert is
 * labelled, described, tested firing and has its runbook line in docs/runbook.md; every query
 * parses with Prometheus's grammar; the dashboard uses only the provisioned data sources.
 * tests/prometheus-stack.test.ts runs them against a real stack.
 */

// promtool evaluates the unit tests' hours of series rule by rule: seconds on a loaded machine.
setDefaultTimeout(60_000);

function promtool(args: string[]) {
  const proc = Bun.spawnSync([prometheusBinary("promtool"), ...args], { cwd: PROMETHEUS_DIR, stdout: "pipe", stderr: "pipe" });
  return { code: proc.exitCode, out: proc.stdout.toString() + proc.stderr.toString() };
}

const RUNBOOK = "docs/runbook.md";
/** The rules' unit tests: rules.test.yaml, evaluated every minute, and slow-rules.test.yaml, every 10 (the alerts of days). */
const RULE_TESTS = ["rules.test.yaml", "slow-rules.test.yaml"].map((f) => join(PROMETHEUS_DIR, "tests", f));

/** The alert names of the runbook's table, before its Tests ("| `AlertName` | …"). */
function runbookAlerts(): string[] {
  const table = readFileSync(join(ROOT, RUNBOOK), "utf8").split(/^## /m)[0]!;
  return [...table.matchAll(/^\| `([A-Za-z]+)` \|/gm)].map((m) => m[1]!);
}

describe("Prometheus: config and rules", () => {
  test("promtool accepts the config (with its rule files) and every rule file", () => {
    const config = promtool(["check", "config", "prometheus.yml"]);
    expect(config.out).toContain("SUCCESS");
    expect(config.code).toBe(0);
    const checked = promtool(["check", "rules", ...ruleFiles()]);
    expect(checked.code).toBe(0);
    expect(ruleFiles().length).toBeGreaterThanOrEqual(2);
  });

  test("promtool's unit tests of the rules pass", () => {
    const r = promtool(["test", "rules", ...RULE_TESTS]);
    expect(r.out).toContain("SUCCESS");
    expect(r.code).toBe(0);
  });

  test("the unit tests load exactly the rule files Prometheus loads", () => {
    for (const file of RULE_TESTS) {
      const loaded = (parse(readFileSync(file, "utf8")) as { rule_files: string[] }).rule_files.map((f) => join(PROMETHEUS_DIR, "tests", f));
      expect(loaded.sort()).toEqual(ruleFiles().sort());
    }
  });

  test("every alert, at each of its severities, is shown firing by a unit test", () => {
    type Expected = { exp_labels?: Record<string, string> };
    const tests = RULE_TESTS.flatMap((file) => (parse(readFileSync(file, "utf8")) as { tests: { alert_rule_test?: { alertname: string; exp_alerts: Expected[] }[] }[] }).tests);
    const fired = new Set(tests.flatMap((t) => (t.alert_rule_test ?? []).flatMap((a) => a.exp_alerts.map((e) => `${a.alertname} ${e.exp_labels?.severity}`))));
    const missing = alertRules().map((a) => `${a.alert} ${a.labels?.severity}`).filter((key) => !fired.has(key));
    expect(missing).toEqual([]);
  });

  test.each(alertRules().map((a) => [`${a.alert} (${a.labels?.severity})`, a] as const))("%s: a severity, a pending time, a summary, a description and the runbook", (_, alert) => {
    expect(["critical", "warning"]).toContain(alert.labels?.severity ?? "");
    expect(alert.for).toMatch(/^\d+[smh]$/);
    expect(Object.keys(alert.annotations ?? {}).sort()).toEqual(["description", "runbook_url", "summary"]);
    expect(alert.annotations!.runbook_url).toBe(RUNBOOK);
  });

  test("docs/runbook.md has a runbook line for every alert, and none for an alert that does not exist", () => {
    const alerts = [...new Set(alertRules().map((a) => a.alert))].sort();
    expect([...runbookAlerts()].sort()).toEqual(alerts);
  });

  test("every recorded series is read by an alert or a dashboard", () => {
    const read = new Set(
      [...rules().map((r) => r.expr), ...dashboardQueries().map((q) => q.expr)].flatMap((expr) => promql(expr).selectors.map((s) => s.metric)),
    );
    expect([...recordedNames()].filter((name) => !read.has(name))).toEqual([]);
  });

  test("every rule's expression parses with Prometheus's grammar", () => {
    const broken = rules().flatMap((r) => promql(r.expr).errors.map((e) => `${r.record ?? r.alert}: ${e}`));
    expect(broken).toEqual([]);
  });
});

describe("Grafana: provisioning and dashboards", () => {
  const datasources = readdirSync(join(GRAFANA_DIR, "provisioning/datasources")).flatMap(
    (f) => (parse(readFileSync(join(GRAFANA_DIR, "provisioning/datasources", f), "utf8")) as { datasources: { uid: string; type: string; url: string }[] }).datasources,
  );

  test("a Prometheus and a Jaeger data source, each with a fixed uid", () => {
    expect(datasources.map((d) => [d.type, d.uid]).sort()).toEqual([
      ["jaeger", "jaeger"],
      ["prometheus", "prometheus"],
    ]);
  });

  test("every panel query parses with Prometheus's grammar, Grafana's variables replaced", () => {
    const queries = dashboardQueries();
    expect(queries.length).toBeGreaterThan(20);
    const broken = queries.flatMap(({ where, expr }) => [...promql(expr).errors, ...(expr.includes("$") ? ["an unknown variable"] : [])].map((e) => `${where}: ${e}`));
    expect(broken).toEqual([]);
  });

  test("every panel reads a provisioned data source, has a description, and its id is unique", () => {
    const uids = new Set(datasources.map((d) => d.uid));
    for (const { file, dashboard } of dashboards()) {
      const panels = panelsOf(dashboard);
      expect(new Set(panels.map((p) => (p as { id?: number }).id)).size).toBe(panels.length);
      for (const p of panels.filter((x) => x.type !== "row")) {
        const used = [p.datasource?.uid, ...(p.targets ?? []).map((t) => t.datasource?.uid)];
        expect({ file, panel: p.title, unknown: used.filter((u) => !uids.has(u ?? "")) }).toEqual({ file, panel: p.title, unknown: [] });
        expect({ panel: p.title, description: typeof (p as { description?: unknown }).description }).toEqual({ panel: p.title, description: "string" });
        expect(p.targets?.length ?? 0).toBeGreaterThan(0);
      }
    }
  });

  test("the dashboard covers the API's RED figures, the webhook pipeline, the outbox and the money flows", () => {
    const read = new Set(dashboardQueries().flatMap(({ expr }) => promql(expr).selectors.map((s) => s.metric)));
    for (const metric of [
      "http_request_duration_seconds_count",
      "job:http_requests_5xx:ratio_rate5m",
      "payaccept:api_request_duration_seconds:p99_5m",
      "webhook_attempts_total",
      "webhook_failing_shop_ratio",
      "payments_outbox_oldest_unpublished_age_seconds",
      "jetstream_consumer_pending_messages",
      "payments_transitions_kopecks_total",
      "payments_refunds_ended_kopecks_total",
      "receipts_by_status",
    ]) {
      expect({ metric, read: read.has(metric) }).toEqual({ metric, read: true });
    }
  });
});
