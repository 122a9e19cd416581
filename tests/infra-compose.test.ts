import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { ROOT, SERVICE_NAMES, SERVICES, type ServiceName } from "../infra/launcher/services.ts";

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
};

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
  test("runs NATS, PostgreSQL and exactly the launcher's services", () => {
    expect(Object.keys(compose.services).sort()).toEqual(["nats", "postgres", ...SERVICE_NAMES].sort());
  });

  test("PostgreSQL keeps its data on a volume, has a health check, and the converted services each use their own schema of it", () => {
    const pg = compose.services.postgres!;
    expect(pg.volumes).toEqual(["postgres-data:/var/lib/postgresql/data"]);
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
      expect(app(name).environment![`${prefix}_DATABASE_URL`]).toBe(`postgres://payaccept:\${POSTGRES_PASSWORD}@postgres:5432/payaccept?schema=${schema}`);
      expect((app(name) as { depends_on?: unknown }).depends_on).toEqual({ postgres: { condition: "service_healthy" } });
    }
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
