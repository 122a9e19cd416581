import { expect, setDefaultTimeout, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { WebhookDelivery } from "@payaccept/contracts";
import { eventually } from "./harness/stack.ts";
import { deliveryLog, paymentEvent, publishPaymentEvent, putShop } from "../services/webhook-dispatcher/test-support/fixtures.ts";
import { retryDelaysEnv, useDispatcherStack } from "../services/webhook-dispatcher/test-support/dispatcher-stack.ts";

// Two real dispatchers, one SIGKILLed, and JetStream's ack waits: the same per-test limit as infra/scripts/test.sh.
setDefaultTimeout(120_000);

const EVENTS = 240;
const CONCURRENCY = 16;
const ctx = useDispatcherStack(
  {
    WEBHOOK_RETRY_DELAYS: retryDelaysEnv([300, 600, 900, 1200, 1500, 1800]),
    WEBHOOK_TIMEOUT_MS: "1000",
    WEBHOOK_ACK_WAIT: "3s",
    // The events the killed process had taken into its intake batch come back after this wait.
    WEBHOOK_INTAKE_ACK_WAIT: "3s",
    WEBHOOK_CONCURRENCY: String(CONCURRENCY),
    WEBHOOK_PER_SHOP_CONCURRENCY: String(CONCURRENCY),
  },
  "postgres",
);

/** One delivery, delivered. An empty log is not done: the killed process's intake batch comes back to the survivor later. */
const deliveredOnce = (log: WebhookDelivery[] | undefined) => log?.length === 1 && log[0]!.result === "delivered";

/**
 * Two dispatchers on one PostgreSQL (no store file at all), one SIGKILLed while attempts are in
 * flight and events are still arriving: every event is delivered, each (payment, status) has one
 * delivery, each attempt number is logged once, and a receiver sees an attempt twice only where
 * docs/webhooks.md allows it: the killed process's attempts whose answer died with it.
 */
test("two dispatchers on PostgreSQL, one SIGKILLed mid-way: every webhook delivered, none doubled beyond at-least-once", async () => {
  // Slow enough that attempts are in flight at the kill; every fifth request fails, so retries are too.
  const r = ctx.receiver(async (_, i) => {
    await Bun.sleep(100);
    return new Response(null, { status: i % 5 === 4 ? 503 : 200 });
  });
  const shop = await putShop(ctx.stack.nc, { webhookUrl: r.url });
  const replica = await ctx.stack.addReplica("webhook-dispatcher");
  const events = Array.from({ length: EVENTS }, (_, i) => paymentEvent(shop, { status: i % 3 === 0 ? "CANCELED" : "SUCCESS" }));

  const half = EVENTS / 2;
  for (const e of events.slice(0, half)) await publishPaymentEvent(ctx.stack.nc, e);
  // Killed once both share the work (a replica that has not delivered yet would die with nothing in hand).
  await eventually(() => r.requests.length >= half / 2 && ctx.stack.replicaLog(replica).includes("webhook delivered"), 60_000);
  await replica.kill("SIGKILL");
  // What the killed process wrote before it died is read here in the next turns of this process's
  // loop (the receiver runs in it); a survivor's copy of one of its attempts comes WEBHOOK_ACK_WAIT later.
  await Bun.sleep(200);
  const killedAt = Date.now();
  for (const e of events.slice(half)) await publishPaymentEvent(ctx.stack.nc, e);

  const log = new Map<string, WebhookDelivery[]>();
  await eventually(async () => {
    for (const e of events) {
      if (deliveredOnce(log.get(e.paymentId))) continue;
      log.set(e.paymentId, await deliveryLog(ctx.stack, shop.shopId, e.paymentId));
    }
    return events.every((e) => deliveredOnce(log.get(e.paymentId)));
  }, 90_000, 500);

  const received = Map.groupBy(r.requests, (q) => JSON.parse(q.body).id as string);
  let doubled = 0;
  for (const e of events) {
    const [delivery] = log.get(e.paymentId)!;
    expect(delivery!.attempts.map((a) => [a.series, a.attempt])).toEqual(delivery!.attempts.map((_, i) => [1, i + 1]));
    const requests = received.get(e.paymentId) ?? [];
    expect(JSON.parse(requests[0]!.body)).toMatchObject({ id: e.paymentId, status: e.status });
    // One request per logged attempt, plus at most the one the killed process had in flight.
    const extra = requests.length - delivery!.attemptCount;
    expect(extra === 0 || (extra === 1 && requests[0]!.at <= killedAt)).toBe(true);
    doubled += extra;
  }
  expect(doubled).toBeLessThanOrEqual(CONCURRENCY);
  expect(existsSync(join(ctx.stack.dataDir, "webhooks.db"))).toBe(false);
});
