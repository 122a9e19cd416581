import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SQL } from "bun";
import { rpcs, type Rpc, type RpcRequest, type RpcResponse } from "@payaccept/contracts";
import type { z } from "zod";
import { call, createLogger, watchClocks, type NatsConnection } from "@payaccept/platform";
import { connect } from "@nats-io/transport-node";
import { startNatsServer, type NatsProcess } from "../../infra/launcher/nats-server.ts";
import { ROOT, SERVICES, SERVICE_NAMES, stackUrls, type ServiceName } from "../../infra/launcher/services.ts";
import { adminCommand, ServiceProcess } from "../../infra/launcher/supervisor.ts";
import { freePort } from "./ports.ts";
import { startPostgres, startReplicatedPostgres, type Postgres, type ReplicatedPostgres } from "./postgres.ts";

// Tests and benches find it here, beside the stack they start.
export { freePort };

export type StackOptions = {
  /** Which services to run (default: all). */
  services?: ServiceName[];
  env?: Record<string, string>;
  /** Supervisor restarts crashed services (default false: tests decide). */
  restart?: boolean;
  /** A NATS already running (a cluster: its URLs comma-separated); then no embedded server is started. */
  natsUrl?: string;
  /**
   * Start one throwaway PostgreSQL for the stack and point every service that can use it
   * (POSTGRES_SERVICES) at its own schema of it; the others keep SQLite under DATA_DIR.
   * `"replicated"`: a primary and its synchronous standby instead (startReplicatedPostgres), the
   * services given the URL that lists both (`pgPair`).
   */
  postgres?: boolean | "replicated";
  /**
   * Another release's executable (tests/harness/release.ts): every service starts from it, as
   * `<it> <service>`, until upgrade() replaces it with this checkout's build.
   */
  executable?: string;
  /** A PostgreSQL already running (shared with another stack, a second "host"): like `postgres`, but not started or stopped here. */
  postgresUrl?: string;
};

/**
 * The services whose rows can live on PostgreSQL, by the prefix of their `<PREFIX>_DATABASE_URL`.
 * With `postgres: true` each gets `?schema=<its name>` of the stack's server: its own store.
 */
export const POSTGRES_SERVICES: Partial<Record<ServiceName, string>> = {
  balance: "BALANCE",
  payments: "PAYMENTS",
  directory: "DIRECTORY",
  dashboard: "DASHBOARD",
  "webhook-dispatcher": "WEBHOOKS",
  receipts: "RECEIPTS",
};

/** A dashboard on PostgreSQL counts as replicated and needs the shared CSRF key (docs/dashboard.md, "Replicas"). */
/**
 * How long a test's service may take to answer /readyz: a liveness bound, not a speed check.
 * The launcher's 30 s is too short here: `npm test` runs several files at once on two cores, and
 * a stack of nine Bun processes plus PostgreSQL's migrations then starts much slower.
 */
export const READY_WAIT_MS = 90_000;
/**
 * The bound of a hook that starts a stack (`beforeAll(fn, STACK_START_MS)`): its services may each
 * take READY_WAIT_MS to be ready, so a file's shorter default test timeout must not cut the start.
 */
export const STACK_START_MS = READY_WAIT_MS + 60_000;

export const TEST_CSRF_SECRET = "test-csrf-secret-shared-by-every-dashboard-replica";

/** `<PREFIX>_DATABASE_URL` of every service of POSTGRES_SERVICES, each on its own schema of the server. */
export function postgresUrls(serverUrl: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(POSTGRES_SERVICES).map(([name, prefix]) => [`${prefix}_DATABASE_URL`, `${serverUrl}${serverUrl.includes("?") ? "&" : "?"}schema=${name.replace(/-/g, "_")}`]),
  );
}

export type ShopCreated = RpcResponse<typeof rpcs.directory.createShop>;

/**
 * A real stack for a test: nats-server -js on a free loopback port, each service as its own
 * process on its own free port, every file under a fresh temporary DATA_DIR.
 */
export class Stack {
  readonly services = new Map<ServiceName, ServiceProcess>();
  /** Extra replicas started with addReplica, with their log files; stop() ends them too. */
  readonly replicas = new Map<ServiceProcess, { logFile: string }>();
  nc!: NatsConnection;
  nats!: NatsProcess;
  /** The stack's PostgreSQL when started with `postgres: true`. */
  pg?: Postgres;
  /** The stack's primary and standby when started with `postgres: "replicated"`. */
  pgPair?: ReplicatedPostgres;
  env: Record<string, string> = {};

  private constructor(
    readonly dataDir: string,
    private readonly natsPort: number,
  ) {}

  static async start(opts: StackOptions = {}): Promise<Stack> {
    const dataDir = mkdtempSync(join(tmpdir(), "payaccept-test-"));
    mkdirSync(join(dataDir, "logs"), { recursive: true });
    const stack = new Stack(dataDir, await freePort());
    const ports: Record<string, string> = {};
    for (const name of SERVICE_NAMES) ports[SERVICES[name].portEnv] = String(await freePort());
    const base: Record<string, string> = {
      ...(process.env as Record<string, string>),
      DATA_DIR: dataDir,
      NATS_URL: opts.natsUrl ?? `nats://127.0.0.1:${stack.natsPort}`,
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "info",
      WEBHOOK_ALLOW_PRIVATE: "1",
      // OWASP's floor rather than Bun's 64 MiB: the suite signs in hundreds of people (docs/dashboard.md).
      DASHBOARD_PASSWORD_MEMORY_KIB: "19456",
      ...ports,
    };
    if (opts.postgres === "replicated") stack.pgPair = await startReplicatedPostgres();
    else if (opts.postgres) stack.pg = await startPostgres();
    const pgUrl = stack.pgPair?.url ?? stack.pg?.url ?? opts.postgresUrl;
    if (pgUrl) Object.assign(base, postgresUrls(pgUrl), { DASHBOARD_CSRF_SECRET: TEST_CSRF_SECRET });
    const merged = { ...base, ...opts.env };
    stack.env = { ...merged, ...stackUrls(merged), ...opts.env };
    if (!opts.natsUrl) await stack.startNats();
    const names = opts.services ?? SERVICE_NAMES;
    for (const name of names) {
      const svc = new ServiceProcess(name, stack.env, {
        restart: opts.restart ?? false,
        log: () => {},
        output: join(dataDir, "logs", `${name}.log`),
        readyWaitMs: READY_WAIT_MS,
        command: opts.executable ? [opts.executable, name] : undefined,
      });
      stack.services.set(name, svc);
      svc.start();
    }
    try {
      await Promise.all(names.map((n) => stack.services.get(n)!.waitReady()));
    } catch (e) {
      const logs = names.map((n) => `--- ${n}\n${stack.log(n).slice(-3000)}`).join("\n");
      await stack.stop();
      throw new Error(`${(e as Error).message}\n${logs}`);
    }
    stack.nc = await connect({ servers: stack.env.NATS_URL!.split(","), maxReconnectAttempts: -1, reconnectTimeWait: 100 });
    // The test's calls carry their clock as every service's do (a service on another clock reads their deadlines on it).
    await watchClocks(stack.nc, "test", testLog, 500);
    return stack;
  }

  async startNats(): Promise<void> {
    this.nats = await startNatsServer({
      port: this.natsPort,
      dataDir: this.dataDir,
      logFile: join(this.dataDir, "logs", `nats-${Date.now()}.log`),
    });
  }

  url(name: ServiceName): string {
    return this.services.get(name)?.url ?? `http://127.0.0.1:${this.env[SERVICES[name].portEnv]}`;
  }

  get gateway(): string {
    return `${this.url("gateway")}/api`;
  }

  service(name: ServiceName): ServiceProcess {
    const s = this.services.get(name);
    if (!s) throw new Error(`${name} is not part of this stack`);
    return s;
  }

  /**
   * Starts one more replica of a service and waits until it is ready: the stack's environment
   * (same NATS, same DATA_DIR and so the same store file) with its own HTTP port, and `env` over
   * it (another DATA_DIR: a replica on another host). Its log is replicaLog(replica);
   * stop()/start()/kill() on the returned process restart or crash it.
   */
  async addReplica(name: ServiceName, opts: { restart?: boolean; env?: Record<string, string> } = {}): Promise<ServiceProcess> {
    const replicaNo = [...this.replicas.keys()].filter((r) => r.name === name).length + 2;
    const logFile = join(this.dataDir, "logs", `${name}-${replicaNo}.log`);
    const env = { ...this.env, [SERVICES[name].portEnv]: String(await freePort()), ...opts.env };
    const replica = new ServiceProcess(name, env, { restart: opts.restart ?? false, log: () => {}, output: logFile, readyWaitMs: READY_WAIT_MS });
    this.replicas.set(replica, { logFile });
    replica.start();
    await replica.waitReady();
    return replica;
  }

  replicaLog(replica: ServiceProcess): string {
    const file = this.replicas.get(replica)?.logFile;
    try {
      return file ? readFileSync(file, "utf8") : "";
    } catch {
      return "";
    }
  }

  /**
   * One step of a rolling deploy: the service's process stopped as an orchestrator stops it
   * (SIGTERM: the work in hand finishes), then this checkout's build of it started in its place on
   * the same port and store, and waited for. Its log is `<name>.upgraded.log` (log(name) goes on
   * reading the old process's).
   */
  async upgrade(name: ServiceName): Promise<ServiceProcess> {
    await this.service(name).stop("SIGTERM");
    const next = new ServiceProcess(name, this.env, { restart: false, log: () => {}, output: join(this.dataDir, "logs", `${name}.upgraded.log`), readyWaitMs: READY_WAIT_MS });
    this.services.set(name, next);
    next.start();
    await next.waitReady();
    return next;
  }

  /** Kill (default SIGKILL: a crash) and optionally start again, waiting until ready. */
  async kill(name: ServiceName, signal: NodeJS.Signals = "SIGKILL"): Promise<void> {
    await this.service(name).kill(signal);
  }

  async restart(name: ServiceName): Promise<void> {
    const s = this.service(name);
    await s.stop("SIGKILL");
    s.start();
    await s.waitReady();
  }

  /**
   * Everything a service has stored, for checks of what is (not) kept: its SQLite file (`file`
   * under DATA_DIR, with its WAL), or on a `postgres: true` stack every row of its schema as text.
   */
  async storedText(name: ServiceName, file: string): Promise<string> {
    if (!this.pg || !POSTGRES_SERVICES[name]) {
      return [file, `${file}-wal`].map((f) => join(this.dataDir, f)).filter(existsSync).map((f) => readFileSync(f).toString("latin1")).join("");
    }
    const sql = new SQL(this.pg.url);
    try {
      const schema = name.replace(/-/g, "_");
      const tables: { table_name: string }[] = await sql`select table_name from information_schema.tables where table_schema = ${schema}`;
      const rows = await Promise.all(tables.map(({ table_name }) => sql.unsafe(`select t::text as row from "${schema}"."${table_name}" t`) as Promise<{ row: string }[]>));
      return rows.flat().map((r) => r.row).join("\n");
    } finally {
      await sql.close();
    }
  }

  log(name: ServiceName): string {
    try {
      return readFileSync(join(this.dataDir, "logs", `${name}.log`), "utf8");
    } catch {
      return "";
    }
  }

  /** The JSON lines of a service's log. */
  logLines(name: ServiceName): Record<string, unknown>[] {
    return this.log(name)
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  }

  /** A typed NATS request from the test, as the admin CLI or the dashboard would make it. */
  call<R extends Rpc<z.ZodType, z.ZodType>>(rpc: R, req: RpcRequest<R>, timeoutMs = 5000): Promise<RpcResponse<R>> {
    return call(this.nc, rpc, req, timeoutMs);
  }

  /**
   * `bun run admin …` against this stack, as an operator would run it (optionally a line on stdin;
   * `env` over the stack's, e.g. a skewed clock).
   */
  async admin(args: string[], stdin?: string, env: Record<string, string> = {}): Promise<{ stdout: string; stderr: string; code: number }> {
    const proc = Bun.spawn([...adminCommand(), ...args], {
      cwd: ROOT,
      env: { ...this.env, NATS_URL: this.env.NATS_URL!, DATA_DIR: this.dataDir, ...env },
      stdin: stdin === undefined ? "ignore" : new TextEncoder().encode(stdin),
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    return { stdout, stderr, code };
  }

  createShop(req: RpcRequest<typeof rpcs.directory.createShop> = { name: "Test shop" }): Promise<ShopCreated> {
    return this.call(rpcs.directory.createShop, req);
  }

  /** fetch against the gateway's /api with the key. */
  api(apiKey: string | null, path: string, init: RequestInit & { json?: unknown } = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (apiKey !== null) headers.set("X-Api-Key", apiKey);
    let body = init.body;
    if (init.json !== undefined) {
      headers.set("Content-Type", "application/json");
      body = JSON.stringify(init.json);
    }
    return fetch(`${this.gateway}${path}`, { ...init, headers, body });
  }

  async stop(): Promise<void> {
    await Promise.all([...this.services.values(), ...this.replicas.keys()].map((s) => s.stop("SIGTERM", 5000)));
    await this.nc?.close().catch(() => {});
    await this.nats?.stop();
    await this.pg?.stop();
    await this.pgPair?.stop();
    if (!process.env.KEEP_TEST_DATA) rmSync(this.dataDir, { recursive: true, force: true });
  }
}

export const testLog = createLogger("test", "silent");

/** Polls until fn returns a truthy value (bounded by timeoutMs). */
export type Truthy<T> = Exclude<T, false | null | undefined | 0 | "">;

export async function eventually<T>(fn: () => T | Promise<T>, timeoutMs = 10000, everyMs = 50): Promise<Truthy<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await fn();
      if (v) return v as Truthy<T>;
    } catch (e) {
      last = e;
    }
    await Bun.sleep(everyMs);
  }
  throw new Error(`condition not met within ${timeoutMs} ms${last ? `: ${(last as Error).message}` : ""}`);
}
