import { PAYMENTS_STREAM, PAYOUTS_STREAM } from "@payaccept/contracts";
import {
  createServiceApp,
  databaseOf,
  DirectoryCache,
  durableConsumer,
  openDirectoryBucket,
  registerConsumerGauges,
  runConsumerLoop,
  startService,
  storeNow,
} from "@payaccept/platform";
import { handleDispatchMessage } from "./bus/dispatch-messages.ts";
import { dispatchPublisher, DISPATCH_STREAM, DURABLE, ensureStreams } from "./bus/streams.ts";
import { loadDispatcherConfig } from "./config.ts";
import { sendWebhook, type WebhookRequest } from "./delivery/send.ts";
import { createDispatcher } from "./dispatch.ts";
import { registerShopFailureGauges } from "./metrics.ts";
import { handlePaymentEventMessage, handlePayoutEventMessage, INTAKE_BATCH, paymentEventRecorder } from "./intake.ts";
import { createSeriesRelay } from "./relay.ts";
import { serveWebhookRpcs } from "./rpc-handlers.ts";
import { ShopConcurrency } from "./shop-concurrency.ts";
import { openDeliveryStore } from "./store/open-delivery-store.ts";

const RELAY_TICK_MS = 5000;
const MIN_DEFERRAL_MS = 100;
const MAX_DEFERRAL_MS = 30_000;
/**
 * A saturated shop's delivery waits here for a slot while its shop's queue would be through within
 * this (a healthy endpoint's burst), instead of a deferral of at least MIN_DEFERRAL_MS; other
 * shops' deliveries wait behind such waiters (in the consumer's pull) about this long at most.
 */
const MAX_SHOP_WAIT_MS = 250;
/** Optimistic on purpose: a healthy shop's burst should not be spread out before its first replies come in. */
const FIRST_ATTEMPT_ESTIMATE_MS = 100;

const svc = startService("webhook-dispatcher", loadDispatcherConfig());
const { cfg, log } = svc;
// The store's clock: attempts are scheduled and logged on one clock by every replica, and webhooks signed with it.
const now = storeNow;

const store = await svc.store(openDeliveryStore(databaseOf(cfg, "WEBHOOKS", "webhooks.db"), { importFrom: cfg.WEBHOOKS_IMPORT_FROM, log }));

const nc = await svc.bus();
const directoryBucket = await openDirectoryBucket(nc, { log });
const directory = new DirectoryCache(directoryBucket, log, nc);
svc.onClose("directory watch", () => directory.stop());
await directory.ready;
const shop = (shopId: string) => directory.shopOrRead(shopId);

const streamSettings = { replicas: cfg.NATS_REPLICAS, ackWaitMs: cfg.WEBHOOK_ACK_WAIT, intakeAckWaitMs: cfg.WEBHOOK_INTAKE_ACK_WAIT, maxAckPending: cfg.WEBHOOK_MAX_ACK_PENDING, log };
const js = await ensureStreams(nc, streamSettings, async () => {
  const requeued = await store.requeuePending();
  if (requeued > 0) log.warn({ requeued }, "dispatch stream missing; its pending deliveries will be published again");
});
const relay = createSeriesRelay({ store, publish: dispatchPublisher(nc, js, cfg.NATS_REQUEST_TIMEOUT_MS), log });
svc.onClose("series relay", relay.start(RELAY_TICK_MS));
const requeue = () => void relay.kick();

const send = (req: WebhookRequest) =>
  sendWebhook(req, { timeoutMs: cfg.WEBHOOK_TIMEOUT_MS, allowPrivate: cfg.WEBHOOK_ALLOW_PRIVATE, now });
const dispatch = createDispatcher({
  store,
  shop,
  send,
  now,
  log,
  retryDelays: cfg.WEBHOOK_RETRY_DELAYS,
  concurrency: new ShopConcurrency({
    perShop: cfg.WEBHOOK_PER_SHOP_CONCURRENCY,
    initialEstimateMs: FIRST_ATTEMPT_ESTIMATE_MS,
    minDeferralMs: MIN_DEFERRAL_MS,
    maxDeferralMs: MAX_DEFERRAL_MS,
    maxWaitMs: MAX_SHOP_WAIT_MS,
    // A burst of one shop may fill the consumer loop's slots: each waiter's turn is due within MAX_SHOP_WAIT_MS.
    maxWaiters: Math.max(0, cfg.WEBHOOK_CONCURRENCY - cfg.WEBHOOK_PER_SHOP_CONCURRENCY),
    now,
  }),
});

// A pull's worth of events is recorded in one transaction: the loop hands over up to INTAKE_BATCH
// messages at once, and the recorder commits those of one event-loop turn together before they are acked.
const record = paymentEventRecorder({ store, now, log, onRecorded: requeue });
const intake = await runConsumerLoop(await durableConsumer(nc, PAYMENTS_STREAM, DURABLE, log), {
  name: "payment events",
  concurrency: INTAKE_BATCH,
  handle: (m) => handlePaymentEventMessage(m, record, log),
  log,
});
svc.essential("payment events", intake);
// Payout events: few, each recorded as one delivery per live shop of its account (docs/webhooks.md, "Payouts").
const payoutIntake = await runConsumerLoop(await durableConsumer(nc, PAYOUTS_STREAM, DURABLE, log), {
  name: "payout events",
  concurrency: 16,
  handle: (m) => handlePayoutEventMessage(m, { store, shops: () => directory.shops.values(), now, log, onRecorded: requeue }),
  log,
});
svc.essential("payout events", payoutIntake);
const dispatcher = await runConsumerLoop(await durableConsumer(nc, DISPATCH_STREAM, DURABLE, log), {
  name: "dispatch",
  concurrency: cfg.WEBHOOK_CONCURRENCY,
  handle: (m) => handleDispatchMessage(m, dispatch, log),
  log,
});
// Without its consumers the dispatcher would idle.
svc.essential("dispatch", dispatcher);

await svc.serve((nc) => serveWebhookRpcs(nc, { store, currentShop: (shopId) => directory.readShop(shopId), send, requeue, now, log }));
await registerConsumerGauges(
  nc,
  [
    { stream: PAYMENTS_STREAM, durable: DURABLE },
    { stream: PAYOUTS_STREAM, durable: DURABLE },
    { stream: DISPATCH_STREAM, durable: DURABLE },
  ],
  cfg.NATS_REQUEST_TIMEOUT_MS,
);
registerShopFailureGauges();

const app = createServiceApp(log, svc.readiness({ paymentEvents: intake.isActive, payoutEvents: payoutIntake.isActive, dispatch: dispatcher.isActive }));
const server = svc.listen({ port: cfg.WEBHOOKS_PORT, fetch: app.fetch });
log.info(
  { port: server.port, timeoutMs: cfg.WEBHOOK_TIMEOUT_MS, retryDelaysMs: cfg.WEBHOOK_RETRY_DELAYS, allowPrivate: cfg.WEBHOOK_ALLOW_PRIVATE },
  "webhook-dispatcher ready",
);
