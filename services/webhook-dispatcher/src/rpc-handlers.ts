import { DomainError, failure, rpcs, type RpcResponse, type ShopRecord } from "@payaccept/contracts";
import { requestIdOf, serve, type Logger, type NatsConnection } from "@payaccept/platform";
import type { AttemptOutcome, WebhookRequest } from "./delivery/send.ts";
import { signingSecretsOf } from "./delivery/signature.ts";
import { failureFields, toWebhookDelivery } from "./delivery-view.ts";
import type { DeliveryStore } from "./store/delivery-store.ts";
import { serializeTestWebhookBody } from "./webhook-body.ts";

export type RpcDeps = {
  store: DeliveryStore;
  /** The shop as the directory holds it now (not the cache): the test webhook goes to the URL just saved. */
  currentShop: (shopId: string) => Promise<ShopRecord | undefined>;
  send: (req: WebhookRequest) => Promise<AttemptOutcome>;
  /** Publishes the attempt series that resend and replay have just committed. */
  requeue: () => void;
  now: () => number;
  log: Logger;
};

const QUEUE = "webhook-dispatcher";

/** rpcs.webhooks.*: the delivery log, the overview's health figures, manual resend, replay and the test webhook. */
export function serveWebhookRpcs(nc: NatsConnection, deps: RpcDeps): void {
  const opts = { queue: QUEUE, log: deps.log };
  serve(nc, rpcs.webhooks.log, async (req) => ({
    items: (await deps.store.list(req)).map(({ delivery, attempts }) => toWebhookDelivery(delivery, attempts)),
  }), opts);
  serve(nc, rpcs.webhooks.health, async (req) => ({ shops: await deps.store.health(req.shopIds, req.fromDay, req.toDay) }), opts);
  serve(nc, rpcs.webhooks.resend, (req, msg) => resend(deps, req.shopId, req.deliveryId, requestIdOf(msg)), opts);
  serve(nc, rpcs.webhooks.replay, (req) => replay(deps, req.shopId, Date.parse(req.since)), opts);
  serve(nc, rpcs.webhooks.test, (req, msg) => sendTestWebhook(deps, req.shopId, requestIdOf(msg)), opts);
}

/** Same stored body, fresh signatures, a new series with the full schedule; also after exhaustion. */
export async function resend(deps: RpcDeps, shopId: string, deliveryId: string, requestId?: string): Promise<RpcResponse<typeof rpcs.webhooks.resend>> {
  const delivery = await deps.store.restart(shopId, deliveryId, deps.now());
  if (!delivery) throw new DomainError("DELIVERY_NOT_FOUND");
  // The answer is the delivery as restarted: the new series' first attempt (this replica's or
  // another's, once published) may already be logged when the attempts are read, and is not in it.
  const attempts = (await deps.store.attemptsOf(deliveryId)).filter((a) => a.series < delivery.series);
  deps.requeue();
  deps.log.info({ requestId, shopId, deliveryId, paymentId: delivery.paymentId, status: delivery.status, series: delivery.series }, "webhook resend requested");
  return toWebhookDelivery(delivery, attempts);
}

/** Every delivery of the shop whose event occurred at or after `since` goes out again through the normal schedule. */
export async function replay(deps: RpcDeps, shopId: string, since: number): Promise<RpcResponse<typeof rpcs.webhooks.replay>> {
  const requeued = await deps.store.restartSince(shopId, since, deps.now());
  deps.requeue();
  deps.log.info({ shopId, since: new Date(since).toISOString(), requeued }, "webhook replay requested");
  return { requeued };
}

/**
 * The dashboard's "Send test webhook": sent at once (not through the schedule, since someone is
 * waiting for the answer), with valid signatures and `test: true`; never stored as a delivery.
 */
export async function sendTestWebhook(deps: RpcDeps, shopId: string, requestId?: string): Promise<RpcResponse<typeof rpcs.webhooks.test>> {
  const shop = await deps.currentShop(shopId);
  if (!shop) throw new DomainError("SHOP_NOT_FOUND");
  const { id, body } = serializeTestWebhookBody();
  if (!shop.webhookUrl) return { id, httpStatus: null, durationMs: 0, ...failureFields(failure("WEBHOOK_URL_MISSING"), "error") };
  const outcome = await deps.send({ url: shop.webhookUrl, body, ...signingSecretsOf(shop, deps.now()) });
  const result = {
    id,
    httpStatus: outcome.kind === "blocked" ? null : outcome.httpStatus,
    durationMs: outcome.durationMs,
    ...failureFields(outcome.kind === "delivered" ? null : outcome.error, "error"),
  };
  deps.log.info({ requestId, shopId, ...result }, "test webhook sent");
  return result;
}
