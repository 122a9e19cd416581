import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Server } from "bun";
import { BACKED_UP_STORES } from "@payaccept/contracts";
import { SERVICE_NAMES, type ServiceName } from "../../infra/launcher/services.ts";
import type { ServiceProcess } from "../../infra/launcher/supervisor.ts";
import { Rotation } from "../replica-fixtures.ts";
import { startCluster, stopCluster, type ClusterNode } from "./nats-cluster.ts";
import { startPostgres, type Postgres } from "./postgres.ts";
import { freePort, POSTGRES_SERVICES, Stack } from "./stack.ts";

/** The services that keep rows of their own, with their SQLite file under DATA_DIR (unused once on PostgreSQL). */
export const STORE_FILES: Partial<Record<ServiceName, string>> = BACKED_UP_STORES;
export const ROW_SERVICES = Object.keys(STORE_FILES) as ServiceName[];
/**
 * Stand-ins for third parties (the bank's acquirer, the provider's online cash register): both
 * hosts reach them over HTTP, so there is one of each, on neither host.
 */
export const THIRD_PARTIES: ServiceName[] = ["acquirer-emulator", "cash-register-emulator"];
/** What runs on each host: every service of ours. */
export const HOST_SERVICES = SERVICE_NAMES.filter((n) => !THIRD_PARTIES.includes(n));

/** Row services that are not (yet) on PostgreSQL, by what the harness can point at it (POSTGRES_SERVICES). */
export const sqliteOnly = () => ROW_SERVICES.filter((n) => POSTGRES_SERVICES[n] === undefined);

export type Host = { name: "A" | "B"; dataDir: string; processes: Map<ServiceName, ServiceProcess> };

/**
 * The product on two simulated hosts: every service of ours twice, each copy with its host's own
 * DATA_DIR and ports, on the 3-node NATS cluster and one PostgreSQL (each converted service in its
 * own schema). A service in `sharedFile` is not on PostgreSQL yet, so its host-B copy cannot have a
 * store of its own: it runs on host A's DATA_DIR, sharing the SQLite file, and says so.
 * Host A is `stack` (its `nc` and `call` talk to the cluster); payments' callbacks from the acquirer
 * and the merchants' API calls reach the hosts through balancers (`callbacks`, `gateways`).
 */
export class TwoHosts {
  private constructor(
    readonly stack: Stack,
    readonly hosts: [Host, Host],
    readonly gateways: Rotation,
    readonly callbacks: Rotation,
    private readonly callbackFront: Server<undefined>,
    private readonly cluster: ClusterNode[],
    private readonly pg: Postgres,
    private readonly workDir: string,
  ) {}

  static async start(opts: { sharedFile: ServiceName[]; env: Record<string, string> }): Promise<TwoHosts> {
    const workDir = mkdtempSync(join(tmpdir(), "two-hosts-"));
    const hostB = mkdtempSync(join(tmpdir(), "two-hosts-b-"));
    const cluster = await startCluster(join(workDir, "nats"));
    const pg = await startPostgres();
    const callbacks = new Rotation([]);
    const callbackFront = serveBalancer(callbacks, await freePort());
    let stack: Stack | undefined;
    try {
      stack = await Stack.start({
        natsUrl: cluster.map((n) => n.url).join(","),
        postgresUrl: pg.url,
        env: { NATS_REPLICAS: "3", PAYMENTS_CALLBACK_URL: `http://127.0.0.1:${callbackFront.port}/provider/callback`, ...smallPools(), ...opts.env },
      });
      const a: Host = { name: "A", dataDir: stack.dataDir, processes: new Map(HOST_SERVICES.map((n) => [n, stack!.service(n)])) };
      const b: Host = { name: "B", dataDir: hostB, processes: new Map() };
      // Started one at a time: 2 cores, and each start runs its migrations.
      for (const name of HOST_SERVICES) {
        b.processes.set(name, await stack.addReplica(name, { env: opts.sharedFile.includes(name) ? {} : { DATA_DIR: hostB } }));
      }
      for (const host of [a, b]) callbacks.add(host.processes.get("payments")!.url);
      const gateways = new Rotation([a, b].map((h) => h.processes.get("gateway")!.url));
      return new TwoHosts(stack, [a, b], gateways, callbacks, callbackFront, cluster, pg, workDir);
    } catch (e) {
      await stack?.stop().catch(() => {});
      callbackFront.stop(true);
      await Promise.all([stopCluster(cluster), pg.stop()]);
      if (!process.env.KEEP_TEST_DATA) for (const dir of [workDir, hostB]) rmSync(dir, { recursive: true, force: true });
      throw e;
    }
  }

  /** The host is lost: every process of ours on it SIGKILLed at once; the balancers' health checks take it out. */
  async kill(host: Host): Promise<void> {
    await Promise.all([...host.processes.values()].map((p) => p.kill("SIGKILL")));
    await Promise.all([this.gateways.remove(host.processes.get("gateway")!.url), this.callbacks.remove(host.processes.get("payments")!.url)]);
  }

  /** The SQLite files in a host's DATA_DIR (a converted service leaves none). */
  static filesOf(host: Host): string[] {
    return readdirSync(host.dataDir).filter((f) => f.endsWith(".db")).sort();
  }

  async stop(): Promise<void> {
    await this.stack?.stop().catch(() => {});
    this.callbackFront.stop(true);
    await stopCluster(this.cluster);
    await this.pg.stop();
    if (!process.env.KEEP_TEST_DATA) for (const dir of [this.workDir, this.hosts[1].dataDir]) rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Every copy of every service holds its own pool on the one server, whose max_connections is
 * PostgreSQL's default 100: 12 processes at the default pool of 10 would be refused ("too many
 * clients"), as a deployment would be that sized pools × replicas past its server's limit.
 */
function smallPools(): Record<string, string> {
  return Object.fromEntries(Object.values(POSTGRES_SERVICES).map((prefix) => [`${prefix}_DATABASE_POOL`, "4"]));
}

/** An HTTP front for a Rotation, as a load balancer: a member that refuses the connection is skipped for the next. */
function serveBalancer(rotation: Rotation, port: number): Server<undefined> {
  return Bun.serve({
    hostname: "127.0.0.1",
    port,
    async fetch(req) {
      const body = req.method === "GET" || req.method === "HEAD" ? undefined : await req.arrayBuffer();
      const headers = new Headers(req.headers);
      headers.delete("host");
      for (let attempt = 0; attempt < 2; attempt++) {
        try {
          return await rotation.fetch(req.url, { method: req.method, headers, body });
        } catch {
          // The member is down: the next one takes the request.
        }
      }
      return new Response("no member of the balancer answered", { status: 502 });
    },
  });
}
