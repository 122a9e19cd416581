import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { METADATA_MAX_BYTES, rpcs, type Payment } from "@payaccept/contracts";
import { verifyWebhook } from "@payaccept/sdk";
import { startReceiver, type Receiver } from "../services/webhook-dispatcher/test-support/receiver.ts";
import { DashboardClient } from "./dashboard-client.ts";
import { ENGINES, sqliteRunOnly } from "./harness/engines.ts";
import { eventually, Stack, type ShopCreated } from "./harness/stack.ts";
import { receiptRequest, registered, RECEIPT_AMOUNT, paySandbox } from "./receipts-fixtures.ts";

setDefaultTimeout(120_000);

/**
 * Issue 20, item 5: a client's JSON nested deep. A document 30,000 arrays deep (60 KB, under the
 * gateway's 64 KB body limit) overflowed the call stack wherever it was walked by recursion, and
 * the create was a 500. Every place a client's document is walked meets one here: the metadata's
 * checks, the Idempotency-Key's fingerprint of the whole body (unknown fields included), the
 * receipt's items, and, for a document within the limits, everything that carries metadata on
 * (payments' store, the event, the webhook and its verifier, receipts, balance, the dashboard's
 * payment page).
 */
const DEPTH = 30_000;
const nested = (depth: number, inner = "") => `${"[".repeat(depth)}${inner}${"]".repeat(depth)}`;
/** The deepest metadata within the limit: {"d":[[…]]} of exactly METADATA_MAX_BYTES. */
const DEEPEST_OK = (METADATA_MAX_BYTES - '{"d":}'.length) / 2;

/** POST /v1/payments with a body written by hand (JSON.stringify of the value would overflow first). */
const postCreate = (stack: Stack, apiKey: string, body: string, headers: Record<string, string> = {}) =>
  fetch(`${stack.gateway}/v1/payments`, { method: "POST", headers: { "X-Api-Key": apiKey, "Content-Type": "application/json", ...headers }, body });
const issueRules = (body: { params?: { issues?: { path: string; params?: { rule?: string } }[] } }) =>
  (body.params?.issues ?? []).map((i) => `${i.path} ${i.params?.rule ?? ""}`.trim());

describe.each(ENGINES)("documents nested deep (%s)", (engine) => {
  let stack: Stack;
  let shop: ShopCreated;
  let receiver: Receiver;
  let orders = 0;
  const orderId = () => `deep-${engine}-${++orders}`;

  beforeAll(async () => {
    receiver = startReceiver();
    stack = await Stack.start({
      services: ["directory", "payments", "gateway", "webhook-dispatcher", "balance", "receipts", "cash-register-emulator", "dashboard"],
      postgres: engine === "postgres",
    });
    shop = await stack.createShop({ name: "Deep shop", sandbox: true, webhookUrl: receiver.url });
    await eventually(async () => (await stack.api(shop.apiKey, "/v1/payments?orderId=none")).status === 404, 30_000);
  });
  afterAll(async () => {
    receiver?.stop();
    await stack?.stop();
  });

  // Refusals and the fingerprint are decided in the gateway before any store is reached.
  sqliteRunOnly(engine, () => {
    test("metadata 30,000 arrays deep (60 KB) is the 400 of any metadata over 4 KB, and so is metadata that is such an array itself", async () => {
      const inKey = await postCreate(stack, shop.apiKey, `{"orderId":"${orderId()}","amountKopecks":10000,"metadata":{"a":${nested(DEPTH)}}}`);
      expect(inKey.status).toBe(400);
      const body = await inKey.json();
      expect(body.code).toBe("VALIDATION_FAILED");
      expect(issueRules(body)).toEqual(["metadata METADATA_TOO_LARGE"]);

      const itself = await postCreate(stack, shop.apiKey, `{"orderId":"${orderId()}","amountKopecks":10000,"metadata":${nested(DEPTH)}}`);
      expect(itself.status).toBe(400);
      expect((await itself.json()).code).toBe("VALIDATION_FAILED");
      // The same with a lone surrogate at the bottom: the problem is reported at its path, as at any depth.
      const surrogate = await postCreate(stack, shop.apiKey, `{"orderId":"${orderId()}","amountKopecks":10000,"metadata":{"a":${nested(DEPTH, '"\\ud800"')}}}`);
      expect(surrogate.status).toBe(400);
      const rules = issueRules(await surrogate.json());
      expect(rules.length).toBe(1);
      // (compared, not shown: the path is 60,000 characters long)
      expect(rules[0] === `metadata.a.${"0.".repeat(DEPTH - 1)}0 LONE_SURROGATE`).toBe(true);
    });

    test("an unknown field 30,000 deep is ignored as any unknown field, with an Idempotency-Key too: created once, replayed, another body refused", async () => {
      const id = orderId();
      const body = `{"orderId":"${id}","amountKopecks":10000,"extra":${nested(DEPTH)}}`;
      const first = await postCreate(stack, shop.apiKey, body, { "Idempotency-Key": `deep-${id}` });
      expect(first.status).toBe(201);
      const created = (await first.json()) as Payment;
      expect(created).not.toHaveProperty("extra");
      // The same body spaced and ordered otherwise is the same request for the key.
      const again = await postCreate(stack, shop.apiKey, `{ "extra": ${nested(DEPTH)}, "amountKopecks": 10000, "orderId": "${id}" }`, { "Idempotency-Key": `deep-${id}` });
      expect(again.status).toBe(201);
      expect(again.headers.get("Idempotent-Replayed")).toBe("true");
      expect(((await again.json()) as Payment).id).toBe(created.id);
      const other = await postCreate(stack, shop.apiKey, `{"orderId":"${id}","amountKopecks":10000,"extra":${nested(DEPTH - 1)}}`, { "Idempotency-Key": `deep-${id}` });
      expect(other.status).toBe(422);
    });

    test("a receipt item nested deep: its name is a 400 naming the field, an unknown field in it is ignored", async () => {
      const items = receiptRequest().items;
      const withItem = (item: string) =>
        `{"orderId":"${orderId()}","amountKopecks":${RECEIPT_AMOUNT},"receipt":${JSON.stringify({ ...receiptRequest(), items: items.slice(1) }).replace('"items":[', `"items":[${item},`)}}`;
      const first = JSON.stringify(items[0]);
      const deepName = await postCreate(stack, shop.apiKey, withItem(first.replace(/"name":"[^"]*"/, `"name":${nested(DEPTH)}`)));
      expect(deepName.status).toBe(400);
      expect(issueRules(await deepName.json())).toEqual(["receipt.items.0.name"]);
      const deepExtra = await postCreate(stack, shop.apiKey, withItem(first.replace("{", `{"extra":${nested(DEPTH)},`)));
      expect(deepExtra.status).toBe(201);
      expect(((await deepExtra.json()) as Payment).amountKopecks).toBe(RECEIPT_AMOUNT);
    });

    test("the dashboard's forms: 30,000 brackets deep is over their 16 KB (413); as deep as fits, a field is an ordinary flat field", async () => {
      const client = DashboardClient.of(stack);
      await client.signUp(`deep-${engine}@example.com`);
      const tooDeep = await client.submit("/shops", "/shops", { name: "Deep form shop", kind: "sandbox", extra: nested(DEPTH) });
      expect(tooDeep.status).toBe(413);
      // Nested names ("a.b", "a[b]") are not expanded: the form is read flat.
      const deepNames = { [`x${".a".repeat(3000)}`]: "1", [`y${"[]".repeat(300)}`]: nested(300) };
      const created = await client.submit("/shops", "/shops", { name: "Deep form shop", kind: "sandbox", ...deepNames });
      expect(created.status).toBe(303);
      expect((await client.follow(created)).status).toBe(200);
      const deepName = await client.submit("/shops", "/shops", { name: nested(1000), kind: "sandbox" });
      expect(deepName.status).toBeLessThan(500);
    });
  });

  test("metadata as deep as 4 KB allows is kept, carried and shown: stored, in the event, the webhook (verified), the receipt, the balance, the dashboard", async () => {
    const metadata = JSON.parse(`{"d":${nested(DEEPEST_OK)}}`) as Record<string, unknown>;
    const create = await postCreate(stack, shop.apiKey, JSON.stringify({ orderId: orderId(), amountKopecks: RECEIPT_AMOUNT, metadata, receipt: receiptRequest() }), {
      "Idempotency-Key": `deepest-${engine}`,
    });
    expect(create.status).toBe(201);
    const payment = (await create.json()) as Payment;
    expect(payment.metadata).toEqual(metadata);
    expect(((await (await stack.api(shop.apiKey, `/v1/payments/${payment.id}`)).json()) as Payment).metadata).toEqual(metadata);

    await paySandbox(stack, payment);
    const webhook = await eventually(() => receiver.requests.find((r) => JSON.parse(r.body).id === payment.id), 30_000);
    const verified = verifyWebhook(webhook.body, webhook.headers, shop.signingSecret);
    expect(verified.ok && verified.event.metadata).toEqual(metadata);
    await registered(stack, shop.shopId, payment.id);
    // The balance read the event (a sandbox payment moves no money, so its metric tells).
    await eventually(async () => /balance_payment_events_total\{status="SUCCESS",effect="sandbox"\} 1/.test(await (await fetch(`${stack.url("balance")}/metrics`)).text()), 30_000);

    const client = DashboardClient.of(stack);
    await stack.call(rpcs.dashboard.createMerchant, { email: `deepest-${engine}@example.com`, password: "correct horse battery", accountId: shop.accountId });
    await client.signIn(`deepest-${engine}@example.com`);
    const page = await client.get(`/shops/${shop.shopId}/payments/${payment.id}`);
    expect(page.status).toBe(200);
    // Indented, 2,045 levels would be 8 MB of spaces: shown compact instead.
    expect(page.html.includes(`>{&quot;d&quot;:${nested(DEEPEST_OK)}}</pre>`)).toBe(true);
    expect(page.html.length).toBeLessThan(200_000);
  });
});
