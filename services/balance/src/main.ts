import { jetstream } from "@nats-io/jetstream";
import { PAYMENTS_STREAM, type PaymentEvent } from "@payaccept/contracts";
import { AuditTrail, Batcher, createServiceApp, databaseOf, ensurePayoutsStream, loadConfig, registerConsumerGauges, sha256Hex, startService, storeNow, Ticker } from "@payaccept/platform";
import { balanceEnv, orderSettingsOf, payoutSettingsOk, sberConnectionOf } from "./config.ts";
import { applyPaymentEvents } from "./ledger.ts";
import { paymentEventsApplied, refundEventsApplied, registerPayoutGauges } from "./metrics.ts";
import { BALANCE_DURABLE, BALANCE_REFUNDS_DURABLE, consumeEvents, PAYMENT_EVENT_BATCH, paymentEventFeed, refundEventFeed } from "./payment-event-consumer.ts";
import { applyRefundEvent } from "./refunds.ts";
import { payoutEventPublisher, payoutEventsRelay } from "./payout-outbox.ts";
import { runDueSchedules } from "./payout-schedule.ts";
import { SberGrantRefused, sberApi } from "./rails/sber/sber-api.ts";
import { runSberRail, SBER_RAIL } from "./rails/sber/sber-rail.ts";
import { directoryDetails, serveBalanceRpcs } from "./rpc-handlers.ts";
import { openLedgerStore } from "./store/open-ledger-store.ts";

const svc = startService("balance", loadConfig(balanceEnv, process.env, payoutSettingsOk));
const { cfg, log } = svc;
// The store's clock: every replica, on any host, releases a hold at HOLD_HOUR of the same clock.
const clock = storeNow;

const store = await svc.store(openLedgerStore(databaseOf(cfg, "BALANCE", "balance.db"), log));

const nc = await svc.bus();

// The events pulled in one turn are applied in one transaction, in stream order (docs/balance.md, "Event consumer").
const intake = new Batcher((events: PaymentEvent[]) => applyPaymentEvents(store, events, clock()), PAYMENT_EVENT_BATCH);
const consumer = await consumeEvents(
  nc,
  paymentEventFeed,
  async (event) => {
    const effect = await intake.add(event);
    paymentEventsApplied.inc({ status: event.status, effect });
    return effect;
  },
  log,
  { ackWaitMs: cfg.BALANCE_ACK_WAIT, concurrency: PAYMENT_EVENT_BATCH },
);
const refundConsumer = await consumeEvents(
  nc,
  refundEventFeed,
  async (event) => {
    const effect = await applyRefundEvent(store, event, clock(), cfg.HOLD_HOUR);
    refundEventsApplied.inc({ status: event.status, effect });
    return effect;
  },
  log,
  { ackWaitMs: cfg.BALANCE_ACK_WAIT },
);
// Without its consumers the ledger goes stale.
svc.essential("payment events", consumer);
svc.essential("refund events", refundConsumer);
const audit = new AuditTrail(nc, log, cfg.NATS_REQUEST_TIMEOUT_MS);
svc.onClose("audit trail", () => audit.close());

// Payout events go out through their outbox: woken by every commit that wrote one, swept for what a crash left.
await ensurePayoutsStream(nc, log);
const publish = payoutEventPublisher(nc, jetstream(nc), cfg.NATS_REQUEST_TIMEOUT_MS);
const outbox = payoutEventsRelay({ store, publish, now: clock, log }, cfg.PAYOUT_OUTBOX_SWEEP);
outbox.start();
svc.onClose("payout events outbox", () => outbox.stop());

const settings = orderSettingsOf(cfg);
if (!settings.payer) log.warn("PAYOUT_PAYER_* unset: payouts are made but none can be sent until the platform's own account is configured");
const directory = directoryDetails(nc, cfg.NATS_REQUEST_TIMEOUT_MS);

// Scheduled payouts: every replica looks; each run's payout is made once (payout-schedule.ts).
const scheduler = new Ticker(
  async () => {
    const runs = await runDueSchedules(store, { detailsOf: directory.detailsOf, now: clock(), holdHour: cfg.HOLD_HOUR, limit: 100 });
    for (const run of runs) log.info(run, run.payoutId ? "scheduled payout" : "scheduled payout not made");
    if (runs.some((r) => r.payoutId)) outbox.wake();
  },
  cfg.PAYOUT_SCHEDULE_TICK,
  (err) => log.warn({ err }, "scheduled payouts not run; the next tick tries again"),
);
scheduler.start();
svc.onClose("payout scheduler", () => scheduler.stop());

// Sber's API: one replica at a time sends the payouts that may go and asks after the SENT ones (rails/sber/sber-rail.ts).
if (cfg.PAYOUT_RAIL === "sber") {
  const api = sberApi(sberConnectionOf(cfg));
  await store.seedBankTokens(SBER_RAIL, cfg.SBER_REFRESH_TOKEN!, sha256Hex(cfg.SBER_REFRESH_TOKEN!), clock());
  const rail = new Ticker(
    async () => {
      const pass = await runSberRail(store, { api, detailsOf: directory.detailsOf, settings, now: clock, log, leaseMs: Math.max(cfg.SBER_POLL_INTERVAL, 10 * cfg.SBER_TIMEOUT) });
      if (!pass) return;
      if (pass.sent + pass.submitted + pass.paid + pass.failed > 0) log.info(pass, "Sber rail pass");
      if (pass.sent + pass.paid + pass.failed > 0) outbox.wake();
    },
    cfg.SBER_POLL_INTERVAL,
    (err) =>
      err instanceof SberGrantRefused
        ? log.error({ err }, "Sber refused the refresh token: a signing person signs in to SberBusiness ID again and SBER_REFRESH_TOKEN is set to the new token")
        : log.warn({ err }, "Sber rail pass cut short; the next one goes on"),
  );
  rail.start();
  svc.onClose("Sber rail", () => rail.stop());
}

await svc.serve((nc) => serveBalanceRpcs(nc, { store, holdHour: cfg.HOLD_HOUR, clock, log, audit, settings, rail: cfg.PAYOUT_RAIL, ...directory, published: () => outbox.wake() }));
await registerConsumerGauges(nc, [
    { stream: PAYMENTS_STREAM, durable: BALANCE_DURABLE },
    { stream: PAYMENTS_STREAM, durable: BALANCE_REFUNDS_DURABLE },
  ], cfg.NATS_REQUEST_TIMEOUT_MS);
registerPayoutGauges(store, clock);

const app = createServiceApp(log, svc.readiness({ paymentEvents: consumer.isActive, refundEvents: refundConsumer.isActive }));
const server = svc.listen({ port: cfg.BALANCE_PORT, fetch: app.fetch });
log.info({ port: server.port, holdHour: cfg.HOLD_HOUR, payoutRail: cfg.PAYOUT_RAIL }, "balance service ready");
