import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { ROOT, SERVICE_NAMES, SERVICES, type ServiceName } from "../infra/launcher/services.ts";
import { dashboards, GRAFANA_DIR, prometheusConfig } from "./harness/observability.ts";

/**
 * infra/compose.yaml read as data and checked against the code: every service of the launcher's
 * table with the port it listens on, only variables the service reads, cross-service URLs that
 * point at real compose services, health checks, volumes; and docker-compose's own validation.
 */
type ComposeService = {
  build?: { context: string; dockerfile: string; args?: Record<string, string> };
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  healthcheck?: { test: string[] };
  command?: string[];
  profiles?: string[];
  image?: string;
  expose?: string[];
};
type Compose = { services: Record<string, ComposeService>; volumes: Record<string, unknown> };

const INFRA = join(ROOT, "infra");
const read = (file: string) => parse(readFileSync(join(INFRA, file), "utf8"), { merge: true }) as Compose;
const compose = read("compose.yaml");
const app = (name: ServiceName) => compose.services[name]!;

/** Secrets compose must be given; its config refuses to render without them. */
const SECRETS = {
  ACQUIRER_API_KEY: "k".repeat(24),
  ACQUIRER_CALLBACK_SECRET: "s".repeat(24),
  PAYPAGE_CSRF_SECRET: "c".repeat(24),
  CASH_REGISTER_API_KEY: "r".repeat(24),
  POSTGRES_PASSWORD: "p".repeat(24),
  DASHBOARD_CSRF_SECRET: "d".repeat(32),
  GRAFANA_ADMIN_PASSWORD: "g".repeat(24),
};

/** Prometheus, Grafana and the trace viewer (docs/observability.md, "Prometheus, Grafana, Jaeger"). */
const OBSERVABILITY = ["prometheus", "grafana", "jaeger"];

/** The environment variables a service reads: its config shape plus raw process.env reads. */
async function variablesRead(name: ServiceName): Promise<Set<string>> {
  const mod = (await import(join(ROOT, SERVICES[name].dir, "src/config.ts"))) as Record<string, unknown>;
  const shape = Object.values(mod).find((v): v is Record<string, unknown> => typeof v === "object" && v !== null && SERVICES[name].portEnv in v);
  if (!shape) throw new Error(`${name}: src/config.ts exports no shape with ${SERVICES[name].portEnv}`);
  const raw = [join(ROOT, "packages/platform/src"), join(ROOT, SERVICES[name].dir, "src")].flatMap((dir) =>
    (readdirSync(dir, { recursive: true }) as string[])
      .filter((f) => /\.tsx?$/.test(f) && !/\.test\.tsx?$/.test(f))
      .flatMap((f) => [...readFileSync(join(dir, f), "utf8").matchAll(/process\.env\.([A-Z][A-Z0-9_]*)/g)].map((m) => m[1]!)),
  );
  return new Set([...Object.keys(shape), ...raw]);
}

function dockerCompose(files: string[], env: Record<string, string>) {
  const bin = Bun.which("docker-compose");
  if (!bin) throw new Error("docker-compose not found: run `bash infra/scripts/bootstrap.sh --test`");
  const proc = Bun.spawnSync([bin, ...files.flatMap((f) => ["-f", join(INFRA, f)]), "config"], {
    env: { PATH: process.env.PATH ?? "", ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  return { code: proc.exitCode, stdout: proc.stdout.toString(), stderr: proc.stderr.toString() };
}

describe("compose.yaml", () => {
  test("runs NATS, PostgreSQL, exactly the launcher's services, and what looks at them", () => {
    expect(Object.keys(compose.services).sort()).toEqual(["nats", "postgres", "postgres-standby", ...SERVICE_NAMES, ...OBSERVABILITY].sort());
  });

  test("PostgreSQL keeps its data on a volume, has a health check, and the converted services each use their own schema of it", () => {
    const pg = compose.services.postgres!;
    expect(pg.volumes![0]).toBe("postgres-data:/var/lib/postgresql/data");
    expect(pg.healthcheck!.test).toContain("pg_isready");
    expect(pg.environment!.POSTGRES_PASSWORD).toMatch(/^\$\{POSTGRES_PASSWORD:\?/);
    const converted = [
      ["balance", "BALANCE", "balance"],
      ["payments", "PAYMENTS", "payments"],
      ["directory", "DIRECTORY", "directory"],
      ["dashboard", "DASHBOARD", "dashboard"],
      ["webhook-dispatcher", "WEBHOOKS", "webhooks"],
    ] as const;
    for (const [name, prefix, schema] of converted) {
      expect(app(name).environment![`${prefix}_DATABASE_URL`]).toBe(
        `postgres://payaccept:\${POSTGRES_PASSWORD}@postgres:5432,postgres-standby:5432/payaccept?target_session_attrs=read-write&schema=${schema}`,
      );
      expect((app(name) as { depends_on?: unknown }).depends_on).toEqual({ postgres: { condition: "service_healthy" } });
    }
  });

  test("the standby is made from the primary by pg_basebackup, streams from it, and is the one the primary's commits wait for", () => {
    const primary = compose.services.postgres!;
    const standby = compose.services["postgres-standby"]!;
    // Written once, when the primary's data directory is made: replication from the compose network,
    // and the settings in postgresql.conf (not on the command line, which ALTER SYSTEM cannot override).
    const init = readFileSync(join(INFRA, primary.volumes!.find((v) => v.includes("/docker-entrypoint-initdb.d/"))!.split(":")[0]!), "utf8");
    expect(init).toContain("host replication ${POSTGRES_USER} all scram-sha-256");
    const settings = Object.fromEntries([...init.matchAll(/^(\w+) = '?([^'\n]*)'?$/gm)].map((m) => [m[1], m[2]]));
    expect(settings).toMatchObject({ wal_level: "replica", synchronous_commit: "on", synchronous_standby_names: "postgres-standby" });
    expect((primary as { command?: string[] }).command).toBeUndefined();
    expect(standby.image).toBe(primary.image);
    expect(standby.volumes![0]).toBe("postgres-standby-data:/var/lib/postgresql/data");
    expect(Object.keys(compose.volumes)).toContain("postgres-standby-data");
    const script = readFileSync(join(INFRA, standby.volumes!.find((v) => v.endsWith(":/standby.sh:ro"))!.split(":")[0]!), "utf8");
    expect(script).toContain("pg_basebackup -h postgres ");
    expect(script).toContain(" -R ");
    // A promoted standby waits for no standby of its own until one is made.
    expect(script).toContain(`echo "synchronous_standby_names = ''" >> "\${PGDATA}/postgresql.conf"`);
    // The name it reports to the primary is the one the primary waits for.
    expect(script).toContain(`cluster_name=${settings.synchronous_standby_names}`);
    expect((standby as { depends_on?: unknown }).depends_on).toEqual({ postgres: { condition: "service_healthy" } });
  });

  test.each(SERVICE_NAMES)("%s is built from the shared Dockerfile with its own folder", (name) => {
    const build = app(name).build!;
    expect(build.args).toEqual({ SERVICE: name });
    expect(existsSync(join(INFRA, build.context, build.dockerfile))).toBe(true);
    expect(existsSync(join(INFRA, build.context, SERVICES[name].dir, "src/main.ts"))).toBe(true);
  });

  test.each(SERVICE_NAMES)("%s listens where the launcher says and publishes no other port", (name) => {
    const { portEnv, port } = SERVICES[name];
    expect(app(name).environment![portEnv]).toBe(String(port));
    for (const mapping of app(name).ports ?? []) expect(mapping.split(":").at(-1)).toBe(String(port));
  });

  test.each(SERVICE_NAMES)("%s is given only variables it reads", async (name) => {
    const known = await variablesRead(name);
    expect(Object.keys(app(name).environment!).filter((v) => !known.has(v))).toEqual([]);
  });

  test.each(SERVICE_NAMES)("%s keeps its data on its own volume and reaches NATS by service name", (name) => {
    const env = app(name).environment!;
    expect(env.DATA_DIR).toBe("/data");
    // The directory also reaches the dashboard's volume, for its one-time import of an older deployment's shops.
    const extra = name === "directory" ? ["dashboard-data:/dashboard-data"] : [];
    expect(app(name).volumes).toEqual([`${name}-data:/data`, ...extra]);
    expect(Object.keys(compose.volumes)).toContain(`${name}-data`);
    expect(env.NATS_URL).toBe("nats://nats:4222");
  });

  test.each(SERVICE_NAMES)("%s has a health check that probes its readiness", (name) => {
    expect(app(name).healthcheck!.test).toEqual(["CMD", "bun", "/app/infra/docker/healthcheck.ts"]);
  });

  test("cross-service URLs name a compose service and the port it listens on", () => {
    const urls = SERVICE_NAMES.flatMap((name) =>
      Object.entries(app(name).environment!).flatMap(([k, v]) => {
        const m = /^https?:\/\/([a-z-]+):(\d+)/.exec(v);
        return m && m[1] !== "localhost" ? [{ where: `${name}.${k}`, host: m[1]!, port: Number(m[2]) }] : [];
      }),
    );
    expect(urls.map((u) => u.where).sort()).toEqual(["payments.ACQUIRER_URL", "payments.PAYMENTS_CALLBACK_URL", "receipts.CASH_REGISTER_URL"]);
    for (const u of urls) expect({ ...u, port: SERVICES[u.host as ServiceName]?.port as number | undefined }).toEqual(u);
  });

  test("secrets have no default: compose refuses to start without them", () => {
    for (const name of SERVICE_NAMES) {
      for (const [k, v] of Object.entries(app(name).environment!)) {
        if (k in SECRETS) expect(v).toMatch(new RegExp(`^\\$\\{${k}:\\?`));
      }
    }
    const refused = dockerCompose(["compose.yaml"], {});
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/set (ACQUIRER_API_KEY|ACQUIRER_CALLBACK_SECRET|PAYPAGE_CSRF_SECRET|CASH_REGISTER_API_KEY|POSTGRES_PASSWORD)/);
    // Grafana's admin is published (on loopback): no well-known password either.
    expect(compose.services.grafana!.environment!.GF_SECURITY_ADMIN_PASSWORD).toMatch(/^\$\{GRAFANA_ADMIN_PASSWORD:\?/);
    const { GRAFANA_ADMIN_PASSWORD: _, ...withoutGrafana } = SECRETS;
    const noGrafana = dockerCompose(["compose.yaml"], withoutGrafana);
    expect(noGrafana.code).not.toBe(0);
    expect(noGrafana.stderr).toContain("set GRAFANA_ADMIN_PASSWORD");
  });

  test("NATS runs the single-node config with its store on a volume and a health check", () => {
    const nats = compose.services.nats!;
    expect(nats.volumes).toContain("./nats/single.conf:/etc/nats/nats.conf:ro");
    expect(nats.volumes).toContain("nats-data:/data");
    expect(nats.command).toEqual(["-c", "/etc/nats/nats.conf"]);
    expect(nats.healthcheck!.test.join(" ")).toContain("http://127.0.0.1:8222/healthz");
    expect(readFileSync(join(INFRA, "nats/single.conf"), "utf8")).toMatch(/store_dir:\s*\/data\/jetstream/);
  });

  test("docker-compose validates it", () => {
    const r = dockerCompose(["compose.yaml"], SECRETS);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
  });
});

describe("compose.yaml: Prometheus, Grafana and the trace viewer", () => {
  const mountOf = (service: string, source: string) => compose.services[service]!.volumes!.find((v) => v.startsWith(`${source}:`))?.split(":");

  test("Prometheus scrapes every service of the launcher, by its compose name, on the port it listens on", () => {
    const jobs = prometheusConfig().scrape_configs;
    expect(jobs.map((j) => j.job_name).sort()).toEqual([...SERVICE_NAMES].sort());
    for (const job of jobs) {
      const name = job.job_name as ServiceName;
      expect(job.dns_sd_configs).toEqual([{ names: [name], type: "A", port: SERVICES[name].port, refresh_interval: "15s" }]);
      expect(app(name).environment![SERVICES[name].portEnv]).toBe(String(SERVICES[name].port));
    }
  });

  test("Prometheus reads its config and rules from infra/prometheus, read-only, and keeps its data on a volume", () => {
    const prometheus = compose.services.prometheus!;
    expect(mountOf("prometheus", "./prometheus")).toEqual(["./prometheus", "/etc/prometheus", "ro"]);
    expect(prometheus.command).toContain("--config.file=/etc/prometheus/prometheus.yml");
    expect(prometheus.volumes).toContain("prometheus-data:/prometheus");
    expect(prometheus.command).toContain("--storage.tsdb.path=/prometheus");
  });

  test("Grafana's data sources name the compose services and their ports; its dashboards are mounted where the provider reads them", () => {
    const grafana = compose.services.grafana!;
    expect(mountOf("grafana", "./grafana/provisioning")).toEqual(["./grafana/provisioning", "/etc/grafana/provisioning", "ro"]);
    const sources = parse(readFileSync(join(GRAFANA_DIR, "provisioning/datasources/datasources.yaml"), "utf8")) as { datasources: { type: string; url: string }[] };
    expect(sources.datasources.map((d) => [d.type, d.url]).sort()).toEqual([
      ["jaeger", "http://jaeger:16686"],
      ["prometheus", "http://prometheus:9090"],
    ]);
    const provider = (parse(readFileSync(join(GRAFANA_DIR, "provisioning/dashboards/dashboards.yaml"), "utf8")) as { providers: { options: { path: string } }[] }).providers;
    const [, target] = mountOf("grafana", "./grafana/dashboards")!;
    expect(provider.map((p) => p.options.path)).toEqual([target!]);
    const home = grafana.environment!.GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH!;
    expect(dashboards().map((d) => `${target}/${d.file}`)).toContain(home);
    expect(grafana.volumes).toContain("grafana-data:/var/lib/grafana");
  });

  test("the trace viewer receives OTLP over HTTP on 4318 inside the compose network", () => {
    const jaeger = compose.services.jaeger!;
    expect(jaeger.image).toMatch(/^jaegertracing\/jaeger:2\./);
    expect(jaeger.expose).toContain("4318");
    expect(jaeger.command).toContain("--set=receivers.otlp.protocols.http.endpoint=0.0.0.0:4318");
    expect(jaeger.ports).toEqual(["127.0.0.1:16686:16686"]);
  });

  test("their pages are published on the host's loopback only", () => {
    for (const name of OBSERVABILITY) {
      const ports = compose.services[name]!.ports ?? [];
      expect(ports.length).toBe(1);
      expect(ports.every((p) => p.startsWith("127.0.0.1:"))).toBe(true);
    }
  });
});

describe("compose.cluster.yaml over compose.yaml", () => {
  const merged = () => {
    const r = dockerCompose(["compose.yaml", "compose.cluster.yaml"], SECRETS);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    return parse(r.stdout) as Compose;
  };

  test("every service connects to all three nodes and asks for 3 replicas", () => {
    const m = merged();
    for (const name of SERVICE_NAMES) {
      expect(m.services[name]!.environment).toMatchObject({
        NATS_URL: "nats://nats-1:4222,nats://nats-2:4222,nats://nats-3:4222",
        NATS_REPLICAS: "3",
        [SERVICES[name].portEnv]: String(SERVICES[name].port),
      });
    }
  });

  test("Prometheus, Grafana and the trace viewer run as they are: the scrape finds each replica by DNS", () => {
    const m = merged();
    for (const name of OBSERVABILITY) expect(m.services[name]!.image).toBe(compose.services[name]!.image);
  });

  test("the services whose rows are on PostgreSQL run as two replicas", () => {
    const m = merged();
    for (const name of ["balance", "directory", "webhook-dispatcher"]) expect((m.services[name] as { deploy?: { replicas: number } }).deploy).toEqual({ replicas: 2 });
  });

  test("three nodes run their own config with their own store; the single node is left off", () => {
    const m = merged();
    expect(m.services.nats!.profiles).toEqual(["single-node"]);
    for (const i of [1, 2, 3]) {
      const node = m.services[`nats-${i}`]!;
      expect(node.command).toEqual(["-c", `/etc/nats/n${i}.conf`]);
      expect(existsSync(join(INFRA, `nats/cluster/n${i}.conf`))).toBe(true);
      expect(node.volumes!.some((v) => v.startsWith(`nats-${i}-data:/data`))).toBe(true);
      expect(node.environment).toMatchObject({ NATS_ROUTE_1: "nats-route://nats-1:6222", NATS_ROUTE_3: "nats-route://nats-3:6222" });
    }
  });
});
