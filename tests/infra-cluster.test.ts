import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jetstreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import { DIRECTORY_BUCKET, PAYMENTS_STREAM, type Payment } from "@payaccept/contracts";
import type { Subprocess } from "bun";
import { createClient, verifyWebhook } from "../packages/sdk/src/index.ts";
import { startReceiver, type Receiver } from "../services/webhook-dispatcher/test-support/receiver.ts";
import { findNatsServer } from "../infra/launcher/nats-server.ts";
import { ROOT } from "../infra/launcher/services.ts";
import { eventually, freePort, Stack, type ShopCreated } from "./harness/stack.ts";

setDefaultTimeout(120_000);

/**
 * The 3-node JetStream cluster of infra/nats/cluster, for real on loopback: three nats-server
 * processes from those config files, the services connected to all three with NATS_REPLICAS=3.
 * Then the node leading the payment-event stream is killed, and the stack must go on taking
 * payments through the gateway and delivering webhooks.
 * A shop created after the loss must work too: nats.js's KV watch does not resume when the node
 * holding its watcher consumer dies while the client stays connected elsewhere, so the services'
 * DirectoryCache notices that it fell behind the bucket and reads it again.
 */
type Node = { name: string; url: string; http: string; proc: Subprocess };

const workDir = mkdtempSync(join(tmpdir(), "payaccept-cluster-"));
const nodes: Node[] = [];
let stack: Stack;
let receiver: Receiver;

async function startCluster(): Promise<void> {
  const ports = [];
  for (let i = 0; i < 3; i++) ports.push({ client: await freePort(), http: await freePort(), cluster: await freePort() });
  const routes = Object.fromEntries(ports.map((p, i) => [`NATS_ROUTE_${i + 1}`, `nats-route://127.0.0.1:${p.cluster}`]));
  for (const [i, p] of ports.entries()) {
    const name = `n${i + 1}`;
    const store = join(workDir, name);
    mkdirSync(store, { recursive: true });
    const log = Bun.file(join(workDir, `${name}.log`));
    const proc = Bun.spawn([findNatsServer(), "-c", join(ROOT, `infra/nats/cluster/${name}.conf`)], {
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
    nodes.push({ name, url: `nats://127.0.0.1:${p.client}`, http: `http://127.0.0.1:${p.http}`, proc });
  }
  // /healthz answers 200 only once the node's JetStream is in contact with an elected meta leader.
  await eventually(async () => {
    const answers = await Promise.all(nodes.map((n) => fetch(`${n.http}/healthz`).then((r) => r.ok, () => false)));
    return answers.every(Boolean);
  }, 30_000);
}

beforeAll(async () => {
  await startCluster();
  receiver = startReceiver();
  stack = await Stack.start({
    services: ["dashboard", "gateway", "payments", "webhook-dispatcher"],
    natsUrl: nodes.map((n) => n.url).join(","),
    env: { NATS_REPLICAS: "3" },
    // As compose's restart policy does: on a cluster that has just formed, a service's first
    // JetStream request (creating a 3-replica bucket) can time out and end the process.
    restart: true,
  });
});

afterAll(async () => {
  receiver?.stop();
  await stack?.stop();
  for (const n of nodes) n.proc.kill("SIGKILL");
  await Promise.all(nodes.map((n) => n.proc.exited));
  if (!process.env.KEEP_TEST_DATA) rmSync(workDir, { recursive: true, force: true });
});

const shopWithWebhook = () => stack.createShop({ name: "Cluster shop", sandbox: false, webhookUrl: receiver.url });

/** Creates a payment through the gateway with the SDK (its §7 recovery included), cancels it, and waits for its signed CANCELED webhook. */
async function payAndCancel(shop: ShopCreated): Promise<Payment> {
  const sdk = createClient({ baseUrl: stack.gateway, apiKey: shop.apiKey, timeoutMs: 5000, recoveryDelayMs: 200 });
  const payment = await sdk.createPayment({ orderId: `cluster-${Bun.randomUUIDv7()}`, amountKopecks: 30000 });
  expect(payment.status).toBe("CREATED");
  // Cancel is idempotent: repeating it across a failover is safe.
  const canceled = await eventually(() => sdk.cancelPayment(payment.id), 20_000, 200);
  expect(canceled.status).toBe("CANCELED");
  // A liveness bound, not a speed claim: after a node loss, a pull consumer whose leader was on
  // that node resumes only once nats.js notices the missed heartbeats (30-45 s with its defaults).
  const webhook = await eventually(() => receiver.requests.find((r) => JSON.parse(r.body).id === payment.id), 90_000);
  const verified = verifyWebhook(webhook.body, webhook.headers, shop.signingSecret);
  expect(verified.ok).toBe(true);
  expect(JSON.parse(webhook.body)).toMatchObject({ id: payment.id, orderId: payment.orderId, status: "CANCELED", amountKopecks: 30000 });
  return payment;
}

describe("3-node JetStream cluster", () => {
  test("the payment stream and the directory bucket are replicated on all three nodes", async () => {
    const jsm = await jetstreamManager(stack.nc);
    const stream = await jsm.streams.info(PAYMENTS_STREAM);
    expect(stream.config.num_replicas).toBe(3);
    expect(stream.cluster?.replicas).toHaveLength(2);
    const kv = await new Kvm(stack.nc).open(DIRECTORY_BUCKET);
    expect((await kv.status()).replicas).toBe(3);
    for await (const info of jsm.streams.list()) expect({ stream: info.config.name, replicas: info.config.num_replicas }).toEqual({ stream: info.config.name, replicas: 3 });
  });

  test("payments and webhooks work with all three nodes up", async () => {
    await payAndCancel(await shopWithWebhook());
  });

  test("losing the node that leads the payment stream stops neither payments nor webhooks", async () => {
    const shop = await shopWithWebhook();
    const jsm = await jetstreamManager(stack.nc);
    const leader = (await jsm.streams.info(PAYMENTS_STREAM)).cluster?.leader;
    const victim = nodes.find((n) => n.name === leader)!;
    expect(victim).toBeDefined();
    victim.proc.kill("SIGKILL");
    await victim.proc.exited;

    // A new leader is elected among the two survivors.
    const newLeader = await eventually(async () => {
      const l = (await jsm.streams.info(PAYMENTS_STREAM)).cluster?.leader;
      return l && l !== victim.name ? l : undefined;
    }, 30_000, 200);
    expect(nodes.map((n) => n.name)).toContain(newLeader);

    await payAndCancel(shop);
    await payAndCancel(await shopWithWebhook());
  }, 240_000);
});
