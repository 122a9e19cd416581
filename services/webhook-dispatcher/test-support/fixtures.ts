import { createHmac } from "node:crypto";
import { jetstream } from "@nats-io/jetstream";
import {
  DEFAULT_TARIFF,
  paymentEventId,
  paymentEventSubject,
  rpcs,
  shopKvKey,
  type FinalStatus,
  type PaymentEvent,
  type ShopRecord,
  type WebhookDelivery,
} from "@payaccept/contracts";
import { encodeJson, openDirectoryBucket, randomToken, type NatsConnection } from "@payaccept/platform";
import type { Stack } from "../../../tests/harness/stack.ts";
import type { ReceivedWebhook } from "./receiver.ts";

export function shopRecord(fields: Partial<ShopRecord> = {}): ShopRecord {
  return {
    shopId: Bun.randomUUIDv7(),
    accountId: Bun.randomUUIDv7(),
    name: "Webhook test shop",
    active: true,
    sandbox: false,
    methods: ["SBP", "CARD"],
    tariff: DEFAULT_TARIFF,
    webhookUrl: null,
    signingSecret: randomToken(),
    successUrl: null,
    failUrl: null,
    updatedAt: new Date().toISOString(),
    ...fields,
  };
}

/**
 * Puts a shop into the directory KV exactly as the directory service publishes it, so dispatcher tests do
 * not depend on the directory service.
 */
export async function putShop(nc: NatsConnection, fields: Partial<ShopRecord> = {}): Promise<ShopRecord> {
  const shop = shopRecord(fields);
  const kv = await openDirectoryBucket(nc);
  await kv.put(shopKvKey(shop.shopId), JSON.stringify(shop));
  return shop;
}

export function paymentEvent(shop: ShopRecord, fields: Partial<PaymentEvent> = {}): PaymentEvent {
  const now = new Date().toISOString();
  return {
    eventId: Bun.randomUUIDv7(),
    paymentId: crypto.randomUUID(),
    shopId: shop.shopId,
    accountId: shop.accountId,
    orderId: `order-${randomToken(6)}`,
    status: "SUCCESS",
    previousStatus: "PENDING",
    amountKopecks: 125_000,
    commissionKopecks: 875,
    method: "SBP",
    telegramId: "123456789",
    metadata: { note: "заказ №7", items: [1, 2] },
    isTest: shop.sandbox,
    paidAt: now,
    createdAt: now,
    occurredAt: now,
    ...fields,
  };
}

/** Publishes an event as the payments outbox relay does: subject by status, Nats-Msg-Id paymentId:status. */
export async function publishPaymentEvent(nc: NatsConnection, event: PaymentEvent): Promise<void> {
  await jetstream(nc).publish(paymentEventSubject(event.status as FinalStatus), encodeJson(event), {
    msgID: paymentEventId(event.paymentId, event.status as FinalStatus),
    timeout: 5000,
  });
}

export async function deliveryLog(stack: Stack, shopId: string, paymentId?: string): Promise<WebhookDelivery[]> {
  return (await stack.call(rpcs.webhooks.log, { shopId, paymentId, limit: 200 })).items;
}

export async function deliveryOf(stack: Stack, shopId: string, paymentId: string): Promise<WebhookDelivery | undefined> {
  return (await deliveryLog(stack, shopId, paymentId))[0];
}

const hmac = (secret: string, data: string) => createHmac("sha256", secret).update(data, "utf8").digest("hex");

/** Checks a received webhook's signatures with node:crypto, independently of the code under test. */
export function signaturesAreValid(request: ReceivedWebhook, secret: string): boolean {
  const ts = request.headers["x-timestamp"] ?? "";
  return (
    /^\d+$/.test(ts) &&
    request.headers["x-signature"] === hmac(secret, request.body) &&
    request.headers["x-signature-v2"] === hmac(secret, `${ts}.${request.body}`)
  );
}

/** `bun run admin …` against the stack, as an operator runs it; the JSON it printed. */
export async function adminJson(stack: Stack, ...args: string[]): Promise<unknown> {
  const { stdout, stderr, code } = await stack.admin([...args, "--json"]);
  if (code !== 0) throw new Error(`admin ${args.join(" ")} exited with ${code}: ${stderr}`);
  return JSON.parse(stdout);
}
