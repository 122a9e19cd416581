import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { Payment, PaymentListPage, rpcs } from "@payaccept/contracts";
import { call } from "@payaccept/platform";
import { clientsOf, clusterStackPerFile, payCancelAndHear } from "./harness/nats-cluster.ts";
import { eventually, type ShopCreated } from "./harness/stack.ts";

setDefaultTimeout(300_000);

/**
 * A hung NATS node (a frozen host, a partition: SIGSTOP here) rather than a dead one. The gateway
 * and payments (and the directory and the dispatcher) are connected to the node that is paused,
 * under a steady load of creates. Promised in docs/nats.md, "What each failure costs": the creates fail
 * for at most 5 s in a row, and the failed ones add up to no more than 5 s of the load: after the
 * clients have moved, the requests that the peers still route to the frozen node's stale queue
 * members are answered by copies (hedging), not lost for as long as the node stays frozen.
 * JetStream (the relay's publishes, the dispatcher's pulls, the directory's KV watch) works again while the node is still frozen, and a create answered with an
 * error never takes effect later than its own NATS deadline, so a §7 lookup made after the error
 * tells the truth.
 */
const RATE_PER_S = 20;
const BEFORE_MS = 5_000;
const FROZEN_AT_LEAST_MS = 15_000;
const AFTER_MS = 6_000;
/** The promise under test, for the longest run of failures and for all of them together. */
const LONGEST_FAILED_RUN_MS = 5_000;
const FAILED_LOAD_MS = 5_000;
const REQUEST_TIMEOUT_MS = 3_000;
const HANDLING_SLACK_MS = 1_000;

const cluster = clusterStackPerFile("failover", { NATS_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS) });

type Outcome = { orderId: string; sentAt: number; answeredAt: number; status: number; error?: string };

/** Creates at RATE_PER_S, each on its own (no waiting for the previous), until stop() or the hard bound. */
function steadyCreates(apiKey: string) {
  const outcomes: Outcome[] = [];
  let stopped = false;
  const create = async (orderId: string): Promise<void> => {
    const sentAt = Date.now();
    let status = 0;
    let error: string | undefined;
    try {
      const res = await cluster.stack.api(apiKey, "/v1/payments", {
        method: "POST",
        json: { orderId, amountKopecks: 10_000 },
        signal: AbortSignal.timeout(10_000),
      });
      status = res.status;
      await res.arrayBuffer();
    } catch (e) {
      // No answer at all counts as a failure too; what ended it is printed with the failures.
      error = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    }
    outcomes.push({ orderId, sentAt, answeredAt: Date.now(), status, error });
  };
  const done = (async () => {
    const started = Date.now();
    const inFlight: Promise<void>[] = [];
    for (let i = 0; !stopped && i < RATE_PER_S * 120; i++) {
      await Bun.sleep(Math.max(0, started + (i * 1000) / RATE_PER_S - Date.now()));
      inFlight.push(create(`failover-${i}`));
    }
    await Promise.all(inFlight);
  })();
  return {
    outcomes,
    stop: async () => {
      stopped = true;
      await done;
    },
  };
}

/** The longest stretch of send times over which every create failed: from the first failure to the next success. */
function longestFailedRun(outcomes: Outcome[]): { ms: number; failed: number } {
  const bySend = [...outcomes].sort((a, b) => a.sentAt - b.sentAt);
  let longest = { ms: 0, failed: 0 };
  let runStart: Outcome | undefined;
  let failed = 0;
  for (const o of bySend) {
    if (o.status !== 201) {
      runStart ??= o;
      failed++;
    } else if (runStart) {
      if (o.sentAt - runStart.sentAt > longest.ms) longest = { ms: o.sentAt - runStart.sentAt, failed };
      runStart = undefined;
      failed = 0;
    }
  }
  if (runStart) longest = { ms: Infinity, failed };
  return longest;
}

describe("a hung NATS node", () => {
  let shop: ShopCreated;

  test("the services under test are connected to the first node", async () => {
    const { nodes, stack } = cluster;
    shop = await stack.createShop({ name: "Failover shop", sandbox: true });
    await eventually(async () => (await stack.api(shop.apiKey, "/v1/payments?orderId=none")).status === 404, 30_000);
    const onFirst = await clientsOf(nodes[0]!);
    for (const name of ["gateway", "payments", "directory", "webhook-dispatcher"]) expect(onFirst).toContain(name);
  });

  test("pausing it under load costs at most 5 s of failed creates, in a row and in all, JetStream goes on without it, and no failed create lands late", async () => {
    const { nodes, stack, receiver, side } = cluster;
    const first = nodes[0]!;
    const load = steadyCreates(shop.apiKey);
    await Bun.sleep(BEFORE_MS);

    first.proc.kill("SIGSTOP");
    const frozenAt = Date.now();
    let resumedAt: number;
    try {
      // While it is frozen: a shop created now reaches the gateway through the directory bucket's
      // watch, and its payment's CANCELED event goes through the outbox relay, the stream and the
      // dispatcher's pull consumer to a signed webhook.
      await Bun.sleep(LONGEST_FAILED_RUN_MS);
      // The directory writes it to the bucket, which waits for a new stream leader if the frozen node led it.
      // A shop's creation is not idempotent (its key is shown once), so it is never copied, and a try
      // routed to the directory's stale member on the frozen node vanishes: tried until one lands
      // (a try that vanished made nothing, by its deadline).
      const fresh = await eventually(
        () => call(side, rpcs.directory.createShop, { name: "Shop made during the freeze", sandbox: false, webhookUrl: receiver.url }, 5_000),
        60_000,
        200,
      );
      await payCancelAndHear(stack.gateway, receiver, fresh);
      await Bun.sleep(Math.max(0, frozenAt + FROZEN_AT_LEAST_MS - Date.now()));
      // The services moved away from the frozen node.
      const elsewhere = [...(await clientsOf(nodes[1]!)), ...(await clientsOf(nodes[2]!))];
      for (const name of ["gateway", "payments", "directory", "webhook-dispatcher"]) expect(elsewhere).toContain(name);
    } finally {
      first.proc.kill("SIGCONT");
      resumedAt = Date.now();
    }
    await Bun.sleep(AFTER_MS);
    await load.stop();

    const { outcomes } = load;
    const run = longestFailedRun(outcomes);
    const failures = outcomes.filter((o) => o.status !== 201);
    console.log(`failover: failed creates sent at (s after the pause) ${failures.map((f) => ((f.sentAt - frozenAt) / 1000).toFixed(1)).join(" ")}`);
    console.log(
      `failover: ${outcomes.length} creates, ${failures.length} failed (${[...new Set(failures.map((f) => f.status))].join(",")}), ` +
        `longest failed run ${run.ms} ms (${run.failed} creates), frozen ${resumedAt - frozenAt} ms` +
        failures.filter((f) => f.error).map((f) => `; no answer to a create sent ${((f.sentAt - frozenAt) / 1000).toFixed(1)} s after the pause (${f.error}, after ${f.answeredAt - f.sentAt} ms)`).join(""),
    );
    expect(run.ms).toBeLessThanOrEqual(LONGEST_FAILED_RUN_MS);
    // Not scattered failures all through the freeze either: all of them are at most 5 s of creates.
    expect((failures.length * 1000) / RATE_PER_S).toBeLessThanOrEqual(FAILED_LOAD_MS);
    // Every failure is an answered error (503), not a hung or dropped HTTP request.
    for (const f of failures) expect(f.status).toBe(503);

    // After the node is back, the truth about every failed create: not there, or there with a
    // creation time no later than its NATS deadline (it was taken up before the gateway gave up;
    // HANDLING_SLACK_MS for the insert of one that started just before it).
    let landed = 0;
    for (const f of failures) {
      const res = await stack.api(shop.apiKey, `/v1/payments?orderId=${f.orderId}`);
      expect([200, 404]).toContain(res.status);
      if (res.status === 404) continue;
      landed++;
      const p = Payment.parse(await res.json());
      expect(Date.parse(p.createdAt)).toBeLessThanOrEqual(f.sentAt + REQUEST_TIMEOUT_MS + HANDLING_SLACK_MS);
    }
    console.log(`failover: ${landed} of the failed creates exist`);
    // Nothing answered 201 was lost: the shop holds exactly the created ones plus those that landed.
    const list = PaymentListPage.parse(await (await stack.api(shop.apiKey, "/v1/payments?limit=1")).json());
    expect(list.total).toBe(outcomes.length - failures.length + landed);

    // And with the node back, everything works as before.
    await payCancelAndHear(stack.gateway, receiver, await stack.createShop({ name: "After the freeze", sandbox: false, webhookUrl: receiver.url }));
  });
});
