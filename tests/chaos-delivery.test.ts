import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Payment } from "@payaccept/contracts";
import { verifyWebhook } from "../packages/sdk/src/index.ts";
import { startReceiver, type Receiver } from "../services/webhook-dispatcher/test-support/receiver.ts";
import { ENGINES } from "./harness/engines.ts";
import { eventually, Stack, type ShopCreated } from "./harness/stack.ts";

setDefaultTimeout(240_000);

/**
 * The black-box promise of webhooks: every (id, status) pair that must arrive does arrive, while
 * the dispatcher, payments and NATS itself are killed in the middle of the traffic. The receiver
 * fails every third request, so retries are in flight when things die. On "postgres" the
 * dispatcher's store is PostgreSQL (WEBHOOKS_DATABASE_URL), the others keep SQLite.
 */
describe.each(ENGINES)("webhook delivery under chaos, the dispatcher on %s", (engine) => {
  let stack: Stack;
  let receiver: Receiver;
  let shop: ShopCreated;

  beforeAll(async () => {
    receiver = startReceiver((_, i) => new Response(null, { status: i % 3 === 0 ? 503 : 200 }));
    stack = await Stack.start({
      services: ["directory", "payments", "gateway", "webhook-dispatcher"],
      postgres: engine === "postgres",
      // Short ack waits: what the killed dispatcher held (attempts, and events taken in) comes back soon.
      env: { WEBHOOK_RETRY_DELAYS: "300ms,600ms,900ms,1200ms,1500ms,1800ms", WEBHOOK_TIMEOUT_MS: "1000", WEBHOOK_ACK_WAIT: "3s", WEBHOOK_INTAKE_ACK_WAIT: "3s" },
    });
    shop = await stack.createShop({ name: "Chaos", webhookUrl: receiver.url });
  });
  afterAll(async () => {
    receiver?.stop();
    await stack?.stop();
  });

  /** A merchant's call that rides out an outage: 5xx and connection errors are retried (bounded). */
  async function untilAnswered(call: () => Promise<Response>): Promise<Response> {
    return eventually(async () => {
      const res = await call().catch(() => undefined);
      return res && res.status < 500 ? res : undefined;
    }, 60_000, 200);
  }

  async function createAndCancel(n: number): Promise<Payment> {
    const orderId = `chaos-${n}`;
    const created = await untilAnswered(() => stack.api(shop.apiKey, "/v1/payments", { method: "POST", json: { orderId, amountKopecks: 10_000 + n } }));
    // A 409 means an earlier try landed before its answer was lost: the spec's recovery is a lookup.
    const payment = (created.status === 201
      ? await created.json()
      : await (await untilAnswered(() => stack.api(shop.apiKey, `/v1/payments?orderId=${orderId}`))).json()) as Payment;
    const canceled = await untilAnswered(() => stack.api(shop.apiKey, `/v1/payments/${payment.id}/cancel`, { method: "POST" }));
    expect(canceled.status).toBe(200);
    return payment;
  }

  test("every CANCELED webhook arrives through kills of the dispatcher, payments and NATS", async () => {
    const payments: Payment[] = [];
    const batch = async (from: number, count: number) => {
      for (let i = from; i < from + count; i++) payments.push(await createAndCancel(i));
    };

    await batch(0, 15);
    await stack.kill("webhook-dispatcher");
    await batch(15, 15);
    await stack.restart("webhook-dispatcher");

    await stack.kill("payments");
    const duringPaymentsDown = batch(30, 10);
    await Bun.sleep(300);
    await stack.restart("payments");
    await duringPaymentsDown;

    await stack.nats.stop();
    const duringNatsDown = batch(40, 10);
    await Bun.sleep(1000);
    await stack.startNats();
    await duringNatsDown;
    await batch(50, 10);

    const expected = new Set(payments.map((p) => p.id));
    const delivered = () => {
      const ok = new Set<string>();
      for (const r of receiver.requests) {
        const v = verifyWebhook(r.body, r.headers, shop.signingSecret);
        if (v.ok && v.event.status === "CANCELED") ok.add(v.event.id);
      }
      return ok;
    };
    await eventually(() => [...expected].every((id) => delivered().has(id)), 120_000, 250);
    expect(expected.size).toBe(60);
    // nothing outside the expected set, and every body verifies
    for (const id of delivered()) expect(expected.has(id)).toBe(true);
  });
});
