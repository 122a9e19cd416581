import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { SERVICES, type ServiceName } from "../../infra/launcher/services.ts";
import { prometheusBinary, prometheusConfig, ruleFiles } from "./observability.ts";
import { eventually, freePort, type Stack } from "./stack.ts";

export type Alert = { labels: Record<string, string>; state: "pending" | "firing" };
export type RuleState = { name: string; health: string; lastError?: string; lastEvaluation: string };
type Sample = { metric: Record<string, string>; value: [number, string] };

/**
 * A real Prometheus (Debian's `prometheus`) scraping a test stack with the jobs and rules of
 * infra/prometheus: each job of prometheus.yml keeps its name and relabelling, only its DNS lookup
 * of the compose service becomes the stack's loopback address of that service. Scrapes every 2 s
 * (a scrape may take its whole 2 s on a loaded machine: the consumer gauges ask JetStream) and rule
 * evaluations every second, so what compose sees in minutes is seen here in seconds.
 */
export class Prometheus {
  private constructor(
    readonly url: string,
    private readonly proc: Bun.Subprocess,
    private readonly dir: string,
  ) {}

  static async start(stack: Stack): Promise<Prometheus> {
    const dir = mkdtempSync(join(tmpdir(), "prometheus-"));
    const compose = prometheusConfig();
    const config = {
      global: { ...compose.global, scrape_interval: "2s", scrape_timeout: "2s", evaluation_interval: "1s" },
      rule_files: ruleFiles(),
      scrape_configs: compose.scrape_configs.map(({ dns_sd_configs, ...job }) => {
        const names = (dns_sd_configs ?? []).flatMap((sd) => sd.names);
        const targets = names.map((name) => {
          if (!(name in SERVICES)) throw new Error(`job ${job.job_name} looks up ${name}, which is no service of the launcher`);
          return new URL(stack.url(name as ServiceName)).host;
        });
        return { ...job, static_configs: [{ targets }] };
      }),
    };
    writeFileSync(join(dir, "prometheus.yml"), stringify(config));
    const port = await freePort();
    const proc = Bun.spawn(
      [
        prometheusBinary("prometheus"),
        `--config.file=${join(dir, "prometheus.yml")}`,
        `--storage.tsdb.path=${join(dir, "data")}`,
        `--web.listen-address=127.0.0.1:${port}`,
        "--log.level=warn",
      ],
      { stdout: Bun.file(join(dir, "prometheus.log")), stderr: Bun.file(join(dir, "prometheus.err")) },
    );
    const prometheus = new Prometheus(`http://127.0.0.1:${port}`, proc, dir);
    await eventually(async () => (await fetch(`${prometheus.url}/-/ready`)).ok, 30_000, 100);
    return prometheus;
  }

  private async api<T>(path: string): Promise<T> {
    const res = await fetch(`${this.url}/api/v1/${path}`);
    const body = (await res.json()) as { status: string; data: T; error?: string };
    if (body.status !== "success") throw new Error(`${path}: ${body.error}`);
    return body.data;
  }

  /** An instant query's series; throws with Prometheus's message when it does not parse or evaluate. */
  async query(expr: string): Promise<Sample[]> {
    return (await this.api<{ result: Sample[] }>(`query?query=${encodeURIComponent(expr)}`)).result;
  }

  async targets(): Promise<{ labels: Record<string, string>; health: string; lastError: string; lastScrape: string }[]> {
    return (await this.api<{ activeTargets: { labels: Record<string, string>; health: string; lastError: string; lastScrape: string }[] }>("targets?state=active")).activeTargets;
  }

  /** Waits until every target has been scraped, successfully, after the given moment. */
  scrapedAfter(at: number, timeoutMs: number) {
    return eventually(async () => {
      const targets = await this.targets();
      return targets.length > 0 && targets.every((t) => t.health === "up" && Date.parse(t.lastScrape) > at) && targets;
    }, timeoutMs);
  }

  /** Every metric name Prometheus holds a series of. */
  names(): Promise<string[]> {
    return this.api("label/__name__/values");
  }

  /** The label names found on the series of one metric. */
  async labelsOf(metric: string): Promise<Set<string>> {
    const series = await this.api<Record<string, string>[]>(`series?match[]=${encodeURIComponent(metric)}`);
    return new Set(series.flatMap((s) => Object.keys(s)));
  }

  async rules(): Promise<RuleState[]> {
    const data = await this.api<{ groups: { rules: RuleState[] }[] }>("rules");
    return data.groups.flatMap((g) => g.rules);
  }

  async alerts(): Promise<Alert[]> {
    return (await this.api<{ alerts: Alert[] }>("alerts")).alerts;
  }

  async stop(): Promise<void> {
    this.proc.kill("SIGTERM");
    await this.proc.exited;
    if (!process.env.KEEP_TEST_DATA) rmSync(this.dir, { recursive: true, force: true });
  }
}
