import { expect, setDefaultTimeout, test } from "bun:test";
import { PAYMENTS_STREAM } from "@payaccept/contracts";
import { DISPATCH_STREAM, DURABLE } from "../services/webhook-dispatcher/src/bus/streams.ts";
import { clientsOf, clusterStackPerFile, leaderOf, moveLeaderTo, payCancelAndHear, type RaftAsset } from "./harness/nats-cluster.ts";

setDefaultTimeout(300_000);

/**
 * The event path's worst placement for a hung node: the node that is paused (SIGSTOP) leads the
 * PAYMENTS stream and the dispatcher's consumer of it, the dispatcher's own WEBHOOKS stream and
 * consumer, and every service is connected to it. A payment canceled while it is frozen still gets
 * its signed webhook, exactly once, before the node resumes (docs/nats.md, "What each
 * failure costs", has the measured times; tests/nats-failover.test.ts leaves placement to chance).
 */
const HELD_BY_THE_HUNG_NODE: RaftAsset[] = [
  { stream: PAYMENTS_STREAM },
  { stream: PAYMENTS_STREAM, consumer: DURABLE },
  { stream: DISPATCH_STREAM },
  { stream: DISPATCH_STREAM, consumer: DURABLE },
];

const cluster = clusterStackPerFile("hung-leader");

test("a payment canceled while the node leading the dispatcher's streams and consumers hangs is heard once, before it resumes", async () => {
  const { nodes, stack, receiver, side } = cluster;
  const shop = await stack.createShop({ name: "Hung leader shop", sandbox: false, webhookUrl: receiver.url });
  // Traffic before the freeze: the dispatcher's pulls are served by the leaders under test.
  await payCancelAndHear(stack.gateway, receiver, shop);
  const hung = nodes[0]!;
  for (const asset of HELD_BY_THE_HUNG_NODE) await moveLeaderTo(side, asset, hung.name);
  const connected = await clientsOf(hung);
  for (const name of ["gateway", "payments", "directory", "webhook-dispatcher"]) expect(connected).toContain(name);

  hung.proc.kill("SIGSTOP");
  const frozenAt = Date.now();
  try {
    // Resumed only in the finally below: the webhook is heard while the node is still frozen.
    const payment = await payCancelAndHear(stack.gateway, receiver, shop);
    const heardAt = receiver.requests.find((r) => JSON.parse(r.body).id === payment.id)!.at;
    const leaders = await Promise.all(HELD_BY_THE_HUNG_NODE.map(async (a) => `${a.consumer ? `${a.stream} > ${a.consumer}` : a.stream}: ${await leaderOf(side, a)}`));
    console.log(`hung leader: webhook heard ${((heardAt - frozenAt) / 1000).toFixed(1)} s after the pause; leaders then ${leaders.join(", ")}`);
  } finally {
    hung.proc.kill("SIGCONT");
  }

  // Once the node is back nothing arrives a second time: one webhook per payment and status.
  await Bun.sleep(5_000);
  const seen = receiver.requests.map((r) => `${JSON.parse(r.body).id}:${JSON.parse(r.body).status}`);
  expect(new Set(seen).size).toBe(seen.length);
});
