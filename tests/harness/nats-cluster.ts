import { afterAll, beforeAll, expect } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { connect } from "@nats-io/transport-node";
import { findNatsServer } from "../../infra/launcher/nats-server.ts";
import { ROOT } from "../../infra/launcher/services.ts";
import type { Payment } from "@payaccept/contracts";
import { createClient, verifyWebhook } from "../../packages/sdk/src/index.ts";
import { startReceiver, type Receiver } from "../../services/webhook-dispatcher/test-support/receiver.ts";
import { UNLIMITED_RATES } from "../replica-fixtures.ts";
import type { NatsConnection } from "@payaccept/platform";
import { eventually, freePort, Stack, type ShopCreated, STACK_START_MS } from "./stack.ts";

/** One node of the cluster: its client URL, its monitoring origin and its process; start() runs it again on its store. */
export type ClusterNode = { name: string; url: string; http: string; proc: Subprocess; start: () => void };

/**
 * The 3-node JetStream cluster of infra/nats/cluster, for real on loopback: three nats-server
 * processes from those config files on free ports, stores and logs under workDir. Resolves once
 * every node's JetStream is in contact with an elected meta leader.
 */
export async function startCluster(workDir: string): Promise<ClusterNode[]> {
  const ports = [];
  for (let i = 0; i < 3; i++) ports.push({ client: await freePort(), http: await freePort(), cluster: await freePort() });
  const routes = Object.fromEntries(ports.map((p, i) => [`NATS_ROUTE_${i + 1}`, `nats-route://127.0.0.1:${p.cluster}`]));
  const nodes = ports.map((p, i) => {
    const name = `n${i + 1}`;
    const store = join(workDir, name);
    mkdirSync(store, { recursive: true });
    let runs = 0;
    const spawn = () => {
      const log = Bun.file(join(workDir, `${name}-${++runs}.log`));
      return Bun.spawn([findNatsServer(), "-c", join(ROOT, `infra/nats/cluster/${name}.conf`)], {
        env: {
          NATS_LISTEN: `127.0.0.1:${p.client}`,
          NATS_HTTP: `127.0.0.1:${p.http}`,
          NATS_CLUSTER_LISTEN: `127.0.0.1:${p.cluster}`,
          NATS_STORE_DIR: store,
          ...routes,
        },
        stdout: log,
        stderr: log,
      });
    };
    const node: ClusterNode = {
      name,
      url: `nats://127.0.0.1:${p.client}`,
      http: `http://127.0.0.1:${p.http}`,
      proc: spawn(),
      start: () => {
        node.proc = spawn();
      },
    };
    return node;
  });
  await clusterHealthy(nodes);
  return nodes;
}

/** /healthz answers 200 only once the node's JetStream is in contact with an elected meta leader. */
export async function clusterHealthy(nodes: ClusterNode[], timeoutMs = 30_000): Promise<void> {
  await eventually(async () => {
    const answers = await Promise.all(nodes.map((n) => fetch(`${n.http}/healthz`).then((r) => r.ok, () => false)));
    return answers.every(Boolean);
  }, timeoutMs);
}

/** Ends every node, a paused one too (SIGKILL needs no resume). */
export async function stopCluster(nodes: ClusterNode[]): Promise<void> {
  for (const n of nodes) n.proc.kill("SIGKILL");
  await Promise.all(nodes.map((n) => n.proc.exited));
}

/** The names of the clients connected to a node, from its monitoring endpoint. */
export async function clientsOf(node: ClusterNode): Promise<string[]> {
  const connz = (await (await fetch(`${node.http}/connz?limit=1000`)).json()) as { connections?: { name?: string }[] };
  return (connz.connections ?? []).map((c) => c.name ?? "");
}

/**
 * Creates a payment through the gateway with the SDK (its §7 recovery included), cancels it, and
 * waits for its signed CANCELED webhook: the request path, the outbox relay's publish and the
 * dispatcher's pull consumer, all working.
 */
export async function payCancelAndHear(
  gateway: string,
  receiver: Receiver,
  shop: ShopCreated,
  /** Runs between the cancel and the wait for its webhook. */
  beforeWebhook: () => Promise<void> = async () => {},
): Promise<Payment> {
  // More recovery rounds than the SDK's default 3: while a node hangs, some requests keep failing
  // (docs/nats.md, "How a client moves off a NATS node"), and a merchant's client rides that out the same way.
  const sdk = createClient({ baseUrl: gateway, apiKey: shop.apiKey, timeoutMs: 5000, recoveryAttempts: 8, recoveryDelayMs: 200 });
  // A new shop reaches the gateway through the directory bucket: wait until its key is accepted.
  // A liveness bound: after a node resumes, nats-server 2.9.10 has left the bucket without a
  // stream leader for ~25 s (docs/nats.md, "What each failure costs").
  await eventually(() => sdk.findPaymentByOrderId("none").then(() => true), 60_000, 200);
  const payment = await sdk.createPayment({ orderId: `cluster-${Bun.randomUUIDv7()}`, amountKopecks: 30000 });
  expect(payment.status).toBe("CREATED");
  // Cancel is idempotent: repeating it across a failover is safe.
  const canceled = await eventually(() => sdk.cancelPayment(payment.id), 20_000, 200);
  expect(canceled.status).toBe("CANCELED");
  await beforeWebhook();
  // A liveness bound, not a speed claim: after a node loss, a pull consumer whose leader was on
  // that node resumes only once nats.js notices the missed heartbeats (30-45 s with its defaults).
  const canceledAt = Date.now();
  const webhook = await eventually(() => receiver.requests.find((r) => JSON.parse(r.body).id === payment.id), 90_000);
  // The figure docs/nats.md reports for each failure ("What each failure costs").
  console.log(`webhook heard ${((webhook.at - canceledAt) / 1000).toFixed(1)} s after the cancel`);
  const verified = verifyWebhook(webhook.body, webhook.headers, shop.signingSecret);
  expect(verified.ok).toBe(true);
  expect(JSON.parse(webhook.body)).toMatchObject({ id: payment.id, orderId: payment.orderId, status: "CANCELED", amountKopecks: 30000 });
  return payment;
}

/** A stream, or a consumer of one, whose Raft group leader can be asked and moved. */
export type RaftAsset = { stream: string; consumer?: string };

/** The server name leading the stream or consumer, asked through `nc` (a connection to live nodes). */
export async function leaderOf(nc: NatsConnection, asset: RaftAsset): Promise<string | undefined> {
  const subject = asset.consumer ? `$JS.API.CONSUMER.INFO.${asset.stream}.${asset.consumer}` : `$JS.API.STREAM.INFO.${asset.stream}`;
  const info = (await nc.request(subject, "", { timeout: 2_000 })).json<{ cluster?: { leader?: string } }>();
  return info.cluster?.leader;
}

/**
 * Steps the leader down until `node` leads the stream or consumer. nats-server 2.9 takes no
 * preferred peer, so each step-down lands on a random other peer: bounded tries.
 */
export async function moveLeaderTo(nc: NatsConnection, asset: RaftAsset, node: string): Promise<void> {
  const stepDown = asset.consumer ? `$JS.API.CONSUMER.LEADER.STEPDOWN.${asset.stream}.${asset.consumer}` : `$JS.API.STREAM.LEADER.STEPDOWN.${asset.stream}`;
  for (let i = 0; i < 20; i++) {
    const leader = await eventually(() => leaderOf(nc, asset), 15_000, 200);
    if (leader === node) return;
    await nc.request(stepDown, "", { timeout: 2_000 }).catch(() => {});
    // Until the old leader's term has ended, INFO may still name it.
    await Bun.sleep(500);
  }
  throw new Error(`${asset.stream}${asset.consumer ? ` > ${asset.consumer}` : ""}: ${node} never became leader`);
}

/** What clusterStackPerFile gives a test file once its beforeAll has run. */
export type ClusterStack = { nodes: ClusterNode[]; stack: Stack; receiver: Receiver; side: NatsConnection };

/**
 * For the calling test file: the 3-node cluster, a webhook receiver, the stack's directory,
 * gateway, payments and dispatcher told the first node first (`NATS_SERVER_ORDER=given`, so all
 * of them are connected to the node a test pauses), and the test's own connection to the other
 * two nodes (`side`). Everything is stopped after the file; KEEP_TEST_DATA keeps the nodes' logs.
 */
export function clusterStackPerFile(name: string, env: Record<string, string> = {}): ClusterStack {
  const workDir = mkdtempSync(join(tmpdir(), `payaccept-${name}-`));
  const cluster = {} as ClusterStack;
  beforeAll(async () => {
    cluster.nodes = await startCluster(workDir);
    cluster.receiver = startReceiver();
    cluster.stack = await Stack.start({
      services: ["directory", "gateway", "payments", "webhook-dispatcher"],
      natsUrl: cluster.nodes.map((n) => n.url).join(","),
      env: { NATS_REPLICAS: "3", NATS_SERVER_ORDER: "given", ...UNLIMITED_RATES, ...env },
      restart: true,
    });
    cluster.side = await connect({ servers: cluster.nodes.slice(1).map((n) => n.url), maxReconnectAttempts: -1 });
  }, STACK_START_MS);
  afterAll(async () => {
    cluster.receiver?.stop();
    await cluster.side?.close();
    await cluster.stack?.stop();
    await stopCluster(cluster.nodes ?? []);
    if (!process.env.KEEP_TEST_DATA) rmSync(workDir, { recursive: true, force: true });
  });
  return cluster;
}
