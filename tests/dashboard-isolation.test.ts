import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Kvm } from "@nats-io/kv";
import { rpcs, shopKvKey, ShopRecord } from "@payaccept/contracts";
import { startReceiver, type Receiver } from "../services/webhook-dispatcher/test-support/receiver.ts";
import { cancelPayment, createPayment } from "./browser/shop-fixtures.ts";
import { DashboardClient, text, uniqueEmail } from "./dashboard-client.ts";
import { eventually, Stack, STACK_START_MS } from "./harness/stack.ts";

// One real stack for the file; bunfig's [test] timeout is not applied by this Bun.
setDefaultTimeout(60_000);

/**
 * A second account reaching for the first one's shop, key, secret, payments and deliveries by URL
 * gets the same 404 page as for things that never existed, and nothing changes.
 */
let stack: Stack;
let receiver: Receiver;
let owner: DashboardClient;
let intruder: DashboardClient;
let a: { shopId: string; apiKey: string };
let b: { shopId: string; apiKey: string };
let paymentId: string;
let deliveryId: string;
let secretBefore: string;

const shopRecord = async (shopId: string) => ShopRecord.parse((await (await new Kvm(stack.nc).open("directory")).get(shopKvKey(shopId)))!.json());
const UNKNOWN_SHOP = "01a20000-0000-7000-8000-000000000000";

beforeAll(async () => {
  stack = await Stack.start({ env: { TRUSTED_PROXIES: "127.0.0.1" } });
  receiver = startReceiver();
  owner = DashboardClient.of(stack);
  await owner.signUp(uniqueEmail("owner"));
  a = await owner.createShop("Owner's shop");
  await owner.submit(`/shops/${a.shopId}/webhook`, `/shops/${a.shopId}/webhook/url`, { webhookUrl: receiver.url });
  const payment = await createPayment(stack, a.apiKey);
  paymentId = payment.id;
  await cancelPayment(stack, a.apiKey, paymentId);
  deliveryId = await eventually(async () => {
    const { items } = await stack.call(rpcs.webhooks.log, { shopId: a.shopId });
    return items.find((d) => d.paymentId === paymentId && d.result === "delivered")?.id;
  });
  secretBefore = (await shopRecord(a.shopId)).signingSecret;

  intruder = DashboardClient.of(stack);
  await intruder.signUp(uniqueEmail("intruder"));
  b = await intruder.createShop("Intruder's shop");
}, STACK_START_MS);
afterAll(async () => {
  receiver?.stop();
  await stack?.stop();
});

describe("another account's things do not exist", () => {
  test("the overview of all shops counts only the account's own", async () => {
    const own = text((await intruder.get("/overview")).html);
    expect(own).toContain("Оборот 0,00\u00A0₽");
    expect(own).toContain("из 0 созданных");
  });

  test("pages of the other shop, its payments (through either shop) and its export are the plain 404 page", async () => {
    await intruder.get("/shops");
    const notFound = await intruder.get(`/shops/${UNKNOWN_SHOP}`);
    expect(notFound.status).toBe(404);
    const paths = [
      `/shops/${a.shopId}`,
      `/shops/${a.shopId}/webhook`,
      `/shops/${a.shopId}/payments`,
      `/shops/${a.shopId}/payments.csv`,
      `/shops/${a.shopId}/payments/${paymentId}`,
      `/shops/${b.shopId}/payments/${paymentId}`,
      `/shops/${b.shopId}/payments/${paymentId}/refund`,
      `/shops/${b.shopId}/payments/${paymentId}/cancel`,
      `/ops/shops`,
      `/ops/shops/${a.shopId}`,
      `/overview?shop=${a.shopId}`,
    ];
    for (const path of paths) {
      const answer = await intruder.get(path);
      expect({ path, status: answer.status }).toEqual({ path, status: 404 });
      expect(text(answer.html)).toBe(text(notFound.html));
    }
  });

  test("actions on the other shop's key, secret, settings, webhook, payments and deliveries are 404 and change nothing", async () => {
    const posts: [string, Record<string, string>][] = [
      [`/shops/${a.shopId}/key`, {}],
      [`/shops/${a.shopId}/settings`, { name: "Taken over", successUrl: "", failUrl: "" }],
      [`/shops/${a.shopId}/webhook/url`, { webhookUrl: "https://attacker.example/hook" }],
      [`/shops/${a.shopId}/webhook/secret`, {}],
      [`/shops/${a.shopId}/webhook/secret/rotate`, {}],
      [`/shops/${a.shopId}/webhook/test`, {}],
      [`/shops/${a.shopId}/webhook/deliveries/${deliveryId}/resend`, { back: "webhook" }],
      [`/shops/${b.shopId}/webhook/deliveries/${deliveryId}/resend`, { back: "webhook" }],
      [`/shops/${b.shopId}/payments/${paymentId}/cancel`, {}],
      [`/shops/${b.shopId}/payments/${paymentId}/refund`, {}],
      [`/ops/shops/${a.shopId}/active`, { active: "0" }],
    ];
    const receivedBefore = receiver.requests.length;
    for (const [path, fields] of posts) {
      await intruder.get("/shops");
      const answer = await intruder.post(path, fields);
      expect({ path, status: answer.status }).toEqual({ path, status: 404 });
      expect(answer.html).not.toContain(secretBefore);
    }

    const record = await shopRecord(a.shopId);
    expect(record).toMatchObject({ name: "Owner's shop", webhookUrl: receiver.url, signingSecret: secretBefore, active: true });
    expect((await stack.api(a.apiKey, `/v1/payments/${paymentId}`)).status).toBe(200);
    const { items } = await stack.call(rpcs.webhooks.log, { shopId: a.shopId });
    expect(items.find((d) => d.id === deliveryId)?.attempts).toHaveLength(1);
    expect(receiver.requests.length).toBe(receivedBefore);
  });

  test("the other account's shop is not listed, and its key is never shown", async () => {
    const list = await intruder.get("/shops");
    expect(text(list.html)).toContain("Intruder's shop");
    expect(text(list.html)).not.toContain("Owner's shop");
    expect(list.html).not.toContain(a.shopId);
  });

  test("the owner reaches all of it", async () => {
    expect((await owner.get(`/shops/${a.shopId}/payments/${paymentId}`)).status).toBe(200);
    expect((await owner.get(`/shops/${a.shopId}/payments.csv`)).status).toBe(200);
    const resend = await owner.submit(`/shops/${a.shopId}/webhook`, `/shops/${a.shopId}/webhook/deliveries/${deliveryId}/resend`, { back: "webhook" });
    expect(resend.status).toBe(303);
  });
});
