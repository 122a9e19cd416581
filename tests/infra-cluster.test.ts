import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jetstreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import { DIRECTORY_BUCKET, PAYMENTS_STREAM } from "@payaccept/contracts";
import { startReceiver, type Receiver } from "../services/webhook-dispatcher/test-support/receiver.ts";
import { clusterHealthy, payCancelAndHear, startCluster, stopCluster, type ClusterNode } from "./harness/nats-cluster.ts";
import { eventually, Stack, type ShopCreated } from "./harness/stack.ts";

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
const workDir = mkdtempSync(join(tmpdir(), "payaccept-cluster-"));
let nodes: ClusterNode[] = [];
let stack: Stack;
let receiver: Receiver;

beforeAll(async () => {
  nodes = await startCluster(workDir);
  receiver = startReceiver();
  stack = await Stack.start({
    services: ["directory", "gateway", "payments", "webhook-dispatcher"],
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
  await stopCluster(nodes);
  if (!process.env.KEEP_TEST_DATA) rmSync(workDir, { recursive: true, force: true });
});

const shopWithWebhook = () => stack.createShop({ name: "Cluster shop", sandbox: false, webhookUrl: receiver.url });

const payAndCancel = (shop: ShopCreated) => payCancelAndHear(stack.gateway, receiver, shop);

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

  test("with two of three nodes down (quorum lost) payments go on, and their webhooks follow once quorum is back", async () => {
    const shop = await shopWithWebhook(); // written to the bucket while two nodes still form a quorum
    const down = nodes.filter((n) => n.proc.killed);
    expect(down).toHaveLength(1);
    const second = nodes.find((n) => !n.proc.killed)!;
    second.proc.kill("SIGKILL");
    await second.proc.exited;

    // Created and canceled on the one node left: SQLite and the cached directory answer; the
    // CANCELED event waits in the payments outbox until JetStream has a quorum again.
    await payCancelAndHear(stack.gateway, receiver, shop, async () => {
      for (const n of [...down, second]) n.start();
      await clusterHealthy(nodes, 60_000);
    });
  }, 240_000);
});
