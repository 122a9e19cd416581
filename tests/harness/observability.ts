import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parser } from "@prometheus-io/lezer-promql";
import { parse } from "yaml";
import { ROOT } from "../../infra/launcher/services.ts";

/**
 * The observability files read as data (the Prometheus config, its rules, the Grafana dashboards)
 * and PromQL taken apart with Prometheus's own grammar (@prometheus-io/lezer-promql), for
 * tests/infra-prometheus.test.ts (static) and tests/prometheus-stack.test.ts (against a real stack).
 */

export const PROMETHEUS_DIR = join(ROOT, "infra/prometheus");
export const GRAFANA_DIR = join(ROOT, "infra/grafana");

export type Rule = {
  record?: string;
  alert?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
};

export type ScrapeJob = { job_name: string; dns_sd_configs?: { names: string[]; type: string; port: number; refresh_interval?: string }[] };
export type PrometheusConfig = { global: Record<string, string>; rule_files: string[]; scrape_configs: ScrapeJob[] };

export const prometheusConfig = (): PrometheusConfig => parse(readFileSync(join(PROMETHEUS_DIR, "prometheus.yml"), "utf8"));

/** The rule files, as prometheus.yml's `rule_files` glob (`rules/*.yaml`) finds them. */
export function ruleFiles(): string[] {
  return readdirSync(join(PROMETHEUS_DIR, "rules"))
    .filter((f) => f.endsWith(".yaml"))
    .map((f) => join(PROMETHEUS_DIR, "rules", f));
}

export function rules(): Rule[] {
  return ruleFiles().flatMap((file) => (parse(readFileSync(file, "utf8")) as { groups: { rules: Rule[] }[] }).groups.flatMap((g) => g.rules));
}

export const alertRules = () => rules().filter((r): r is Rule & { alert: string } => r.alert !== undefined);
export const recordedNames = () => new Set(rules().flatMap((r) => (r.record ? [r.record] : [])));

type Panel = { type: string; title: string; datasource?: { type: string; uid: string }; targets?: { expr: string; datasource?: { uid: string } }[]; panels?: Panel[] };
export type Dashboard = { uid: string; title: string; panels: Panel[] };

export function dashboards(): { file: string; dashboard: Dashboard }[] {
  const dir = join(GRAFANA_DIR, "dashboards");
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .map((file) => ({ file, dashboard: JSON.parse(readFileSync(join(dir, file), "utf8")) as Dashboard }));
}

/** Every panel, those inside collapsed rows included. */
export const panelsOf = (d: Dashboard): Panel[] => d.panels.flatMap((p) => [p, ...(p.panels ?? [])]);

/**
 * Grafana's interval variables, replaced as Grafana does before the query reaches Prometheus
 * (with a 15 s scrape, $__rate_interval is a minute).
 */
export const asSentByGrafana = (expr: string) => expr.replaceAll("$__rate_interval", "1m").replaceAll("$__interval", "15s").replaceAll("$__range", "1h");

/** Each panel query of every dashboard, as Prometheus receives it. */
export function dashboardQueries(): { where: string; expr: string }[] {
  return dashboards().flatMap(({ file, dashboard }) =>
    panelsOf(dashboard).flatMap((p) => (p.targets ?? []).map((t) => ({ where: `${file}: ${p.title}`, expr: asSentByGrafana(t.expr) }))),
  );
}

export type Selector = { metric: string; labels: string[] };

/**
 * The syntax errors of a PromQL expression (empty when it parses) and the series it selects: each
 * selector's metric name and the labels its matchers name.
 */
export function promql(expr: string): { errors: string[]; selectors: Selector[] } {
  const errors: string[] = [];
  const selectors: Selector[] = [];
  parser.parse(expr).iterate({
    enter(node) {
      if (node.type.isError) errors.push(`at ${node.from}: "${expr.slice(node.from, node.to + 10)}"`);
      if (node.name !== "VectorSelector") return;
      const metric = node.node.getChild("Identifier");
      const labels = node.node.getChild("LabelMatchers")?.getChildren("UnquotedLabelMatcher") ?? [];
      selectors.push({
        metric: metric ? expr.slice(metric.from, metric.to) : "",
        labels: labels.map((m) => m.getChild("LabelName")).flatMap((l) => (l ? [expr.slice(l.from, l.to)] : [])),
      });
    },
  });
  return { errors, selectors };
}

/** A Prometheus tool from Debian's `prometheus` package (bootstrap.sh --test installs it). */
export function prometheusBinary(name: "promtool" | "prometheus"): string {
  const bin = Bun.which(name);
  if (!bin) throw new Error(`${name} not found: run \`bash infra/scripts/bootstrap.sh --test\` (Debian package prometheus)`);
  return bin;
}
