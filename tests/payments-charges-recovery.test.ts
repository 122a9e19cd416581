import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Balance, Payment, rpcs } from "@payaccept/contracts";
import { ENGINES } from "./harness/engines.ts";
import { eventually, Stack } from "./harness/stack.ts";
import { acquirer, api, outcomeOf, refusal, savedCard, shopWithReceiver, webhookOf, webhookStatuses, type LiveShop } from "./recurring-fixtures.ts";

/**
 * Merchant-initiated charges that lose their answer or their process (issue 18): the acquirer
 * charges once per charge id, so a lost answer, a repeated Idempotency-Key, a copy of the call
 * and services SIGKILLed between a charge's steps (its row written; the acquirer asked; its
 * decision committed) never charge twice, and nothing is lost: the payment ends SUCCESS, with one
 * webhook and one credit on the balance. Both engines.
 */
setDefaultTimeout(180_000);

/**
 * Whether bytes sent to this local port wait unread on an established connection, as a request
 * to a stopped process does (Linux's /proc/net/tcp{,6}: state 01, the rx_queue of tx:rx).
 */
function bytesWaitingAt(port: number): boolean {
  return ["/proc/net/tcp", "/proc/net/tcp6"].some((file) =>
    readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .slice(1)
      .some((line) => {
        const [, local, , state, queues] = line.trim().split(/\s+/);
        return parseInt(local!.split(":").at(-1)!, 16) === port && state === "01" && parseInt(queues!.split(":")[1]!, 16) > 0;
      }),
  );
}

const AMOUNT = 99_000;
/** The card tariff's 2.5 %. */
const net = (amount: number) => amount - Math.round((amount * 250) / 10_000);

describe.each(ENGINES)("charges that lose their answer or their process (%s)", (engine) => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await Stack.start({
      services: ["directory", "gateway", "payments", "acquirer-emulator", "webhook-dispatcher", "balance"],
      postgres: engine === "postgres",
      // A short lease, so the charge sweeper takes over soon after a driver died. A long wait for the
      // acquirer: a charge frozen mid-call must still be waiting when the test freezes payments, however
      // slowly a busy machine gets there (its caller, the gateway, still gives up after 3 s: a 503).
      env: { CHARGE_RETRY_MS: "1s", TIMER_SWEEP_MS: "200", ACQUIRER_CALLBACK_RETRY_BASE: "200ms", ACQUIRER_CALLBACK_RETRY_CAP: "1s", ACQUIRER_TIMEOUT_MS: "60s" },
    });
  });
  afterAll(() => stack?.stop());

  /** A shop of its own (its own account: the balance is this test's alone) with a saved card. */
  async function shopWithCard(pan?: string): Promise<{ shop: LiveShop; methodId: string }> {
    const shop = await shopWithReceiver(stack);
    const { methodId } = await savedCard(stack, shop, { pan });
    return { shop, methodId };
  }
  const chargeBody = (methodId: string) => ({ orderId: `charge-${crypto.randomUUID()}`, amountKopecks: AMOUNT, paymentMethodId: methodId });
  const bankCharge = async (id: string) => (await (await acquirer(stack, `/v1/charges/${id}`)).json()) as { kind: string; status: string; capturedKopecks: number };

  /** One charge, once: SUCCESS with one webhook, PAID at the acquirer, and the balance holding both payments' receipts once. */
  async function chargedOnce(shop: LiveShop, id: string): Promise<void> {
    const done = await eventually(async () => {
      const p = Payment.parse((await api(stack, shop, `/v1/payments/${id}`)).body);
      return p.status !== "PENDING" && p;
    }, 60_000);
    expect(done.status).toBe("SUCCESS");
    expect(await bankCharge(id)).toMatchObject({ kind: "CHARGE", status: "PAID", capturedKopecks: AMOUNT });
    await webhookOf(shop, id, "SUCCESS");
    expect(webhookStatuses(shop, id)).toEqual(["SUCCESS"]);
    await eventually(async () => Balance.parse((await api(stack, shop, "/v1/balance")).body).frozenKopecks === net(150_000) + net(AMOUNT), 30_000);
  }

  test("the answer to the charge is lost (test card 0077): the callback ends it; the same Idempotency-Key answers the first response, charging nothing more", async () => {
    const { shop, methodId } = await shopWithCard("4000 0000 0000 0077");
    try {
      const body = chargeBody(methodId);
      const headers = { "Idempotency-Key": `charge-key-${crypto.randomUUID()}` };
      const first = await api(stack, shop, "/v1/payments", { method: "POST", json: body, headers });
      expect(first.status).toBe(201);
      const res = await stack.api(shop.apiKey, "/v1/payments", { method: "POST", json: body, headers });
      expect([res.status, res.headers.get("Idempotent-Replayed"), await res.json()]).toEqual([201, "true", first.body]);
      // the same order under another key is the spec's 409: no second payment, no second charge
      expect(await refusal(api(stack, shop, "/v1/payments", { method: "POST", json: body, headers: { "Idempotency-Key": `other-${crypto.randomUUID()}` } }))).toEqual({ status: 409, code: "ORDER_ID_TAKEN" });
      await chargedOnce(shop, (first.body as { id: string }).id);
    } finally {
      shop.receiver.stop();
    }
  });

  test("the acquirer drops its answer (the knob): the charge is found by its own id, never made twice", async () => {
    const { shop, methodId } = await shopWithCard();
    try {
      expect((await acquirer(stack, "/v1/control/drop-answers", { operation: "charge", count: 1 })).status).toBe(200);
      const done = await outcomeOf(stack, shop, await api(stack, shop, "/v1/payments", { method: "POST", json: chargeBody(methodId) }));
      await chargedOnce(shop, done.id);
    } finally {
      shop.receiver.stop();
    }
  });

  test("payments SIGKILLed after writing the charge, before the acquirer ever had it: the charge sweeper charges it once after the restart", async () => {
    const { shop, methodId } = await shopWithCard();
    try {
      await stack.kill("acquirer-emulator");
      const res = await api(stack, shop, "/v1/payments", { method: "POST", json: chargeBody(methodId) });
      expect(res).toMatchObject({ status: 201, body: { status: "PENDING", merchantInitiated: true } });
      const { id } = res.body as { id: string };
      expect((await acquirer(stack, `/v1/charges/${id}`).catch(() => null))?.status).toBeUndefined();
      await stack.kill("payments");
      await stack.restart("acquirer-emulator");
      expect((await acquirer(stack, `/v1/charges/${id}`)).status).toBe(404);
      await stack.restart("payments");
      await chargedOnce(shop, id);
    } finally {
      shop.receiver.stop();
    }
  });

  test("payments SIGKILLed after the acquirer charged, before it committed the answer: the acquirer's callback (or the sweeper's lookup) ends it once", async () => {
    const { shop, methodId } = await shopWithCard();
    try {
      const body = chargeBody(methodId);
      // The acquirer holds the request until payments is frozen mid-call, then charges and answers into the void.
      stack.service("acquirer-emulator").kill("SIGSTOP");
      const call = api(stack, shop, "/v1/payments", { method: "POST", json: body });
      const row = await eventually(() => stack.call(rpcs.payments.lookup, { shopId: shop.shopId, orderId: body.orderId }).catch(() => null));
      // The row is written before the charge is sent: payments is frozen only once the request waits at the acquirer.
      await eventually(() => bytesWaitingAt(Number(new URL(stack.url("acquirer-emulator")).port)), 30_000);
      stack.service("payments").kill("SIGSTOP");
      stack.service("acquirer-emulator").kill("SIGCONT");
      await eventually(async () => (await acquirer(stack, `/v1/charges/${row.id}`)).status === 200, 30_000);
      await stack.kill("payments");
      expect((await call).status).toBe(503);
      await stack.restart("payments");
      await chargedOnce(shop, row.id);
    } finally {
      shop.receiver.stop();
    }
  });
});
