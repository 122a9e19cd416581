import { jetstream } from "@nats-io/jetstream";
import { devProviderSecretsInUse, IDEMPOTENCY_TTL_MS, rpcs } from "@payaccept/contracts";
import { AuditTrail, call, Ticker, createServiceApp, databaseOf, DirectoryCache, ensurePaymentsStream, loadConfig, openDirectoryBucket, startService, storeNow } from "@payaccept/platform";
import { announceTransitions } from "./app/announce.ts";
import type { PaymentsDeps } from "./app/deps.ts";
import { paymentsChecks, paymentsEnv } from "./config.ts";
import { Connectors } from "./connectors/connectors.ts";
import { providerCallbackRoutes } from "./http/provider-callback-route.ts";
import { countEndedRefund, registerOutboxGauges, registerRefundGauges } from "./metrics.ts";
import { jetstreamPublisher } from "./outbox/jetstream-publisher.ts";
import { OutboxRelay } from "./outbox/relay.ts";
import { ChangeNotices } from "./rpc/change-notices.ts";
import { servePayments } from "./rpc/serve-payments.ts";
import { openPaymentsStore } from "./store/open-payments-store.ts";
import { retryCharge } from "./app/charges.ts";
import { ChargeOutcomes } from "./app/charge-outcomes.ts";
import { expireDue } from "./app/holds.ts";
import { expireMethod } from "./app/saved-methods.ts";
import { reconcileNow } from "./app/reconcile.ts";
import { DueSweeper } from "./timers/due-sweeper.ts";
import { RefundSweeper } from "./timers/refund-sweeper.ts";

const svc = startService("payments", loadConfig(paymentsEnv, process.env, paymentsChecks));
const { cfg, log } = svc;
for (const variable of devProviderSecretsInUse(cfg)) log.warn({ variable }, "using the published development value; set a real secret outside development");

// The store's after-commit hooks wake the outbox relay, which needs NATS and so is made after the
// store: until then a wake has nothing to do (the relay's first pass sends what is committed by then).
let wakeRelay = () => {};
// The read models' notices, likewise made once NATS is up (nothing is served before).
let noticeChange = (_paymentId: string) => {};
const announce = announceTransitions(log, () => wakeRelay(), (id) => noticeChange(id));
const store = await svc.store(
  openPaymentsStore(
    databaseOf(cfg, "PAYMENTS", "payments.db"),
    {
      onCommitted: announce,
      onEnded: (ended) => {
        const { refund, requestId } = ended;
        log.info({ requestId, refundId: refund.id, paymentId: refund.paymentId, status: refund.status, amountKopecks: refund.amountKopecks, failureCode: refund.failureCode }, "refund ended");
        countEndedRefund(ended);
        noticeChange(ended.payment.id);
        wakeRelay();
      },
      onMethodEnded: ({ method, event }) => {
        log.info({ methodId: method.id, shopId: method.shopId, paymentId: method.paymentId, status: method.status, revokedBy: method.revokedBy, event }, "saved method ended");
        if (event) wakeRelay();
      },
      onCallbackError: (err) => log.error({ err }, "after-commit callback failed"),
    },
    { importFrom: cfg.PAYMENTS_IMPORT_FROM, log },
  ),
);
const { payments: repo, refunds, outbox, methods, keys } = store;
registerOutboxGauges(outbox, storeNow);

const nc = await svc.bus();
await ensurePaymentsStream(nc, log);
const directoryBucket = await openDirectoryBucket(nc, { log });
const directory = new DirectoryCache(directoryBucket, log, nc);
svc.onClose("directory watch", () => directory.stop());
const relay = new OutboxRelay(outbox, jetstreamPublisher(nc, jetstream(nc), cfg.NATS_REQUEST_TIMEOUT_MS), log, {
  delayMs: cfg.OUTBOX_RELAY_DELAY_MS,
  sweepMs: cfg.OUTBOX_SWEEP_MS,
});
wakeRelay = () => relay.wake();
const notices = new ChangeNotices(nc);
svc.onClose("change notices", () => notices.stop());
noticeChange = (id) => notices.changed(id);
registerRefundGauges(refunds, storeNow);
const audit = new AuditTrail(nc, log, cfg.NATS_REQUEST_TIMEOUT_MS);
const connectors = Connectors.fromConfig(cfg, cfg.PAYMENTS_DEFAULT_CONNECTOR, { failures: cfg.CONNECTOR_CIRCUIT_FAILURES, openMs: cfg.CONNECTOR_CIRCUIT_OPEN, windowMs: cfg.CONNECTOR_HEALTH_WINDOW }, log);
svc.onClose("audit trail", () => audit.close());
const deps: PaymentsDeps = {
  repo,
  keys,
  refunds,
  methods,
  refundLeaseMs: cfg.REFUND_RETRY_MS,
  chargeLeaseMs: cfg.CHARGE_RETRY_MS,
  shops: { shop: (shopId) => directory.shopOrRead(shopId) },
  connectors,
  chargeOutcomes: new ChargeOutcomes(),
  balance: {
    reserveRefund: (req, requestId) => call(nc, rpcs.balance.reserveRefund, req, cfg.NATS_REQUEST_TIMEOUT_MS, { requestId }),
  },
  audit,
  log,
  // The store's clock: refund leases, expiries and createdAt are written and compared on one clock by every replica.
  now: storeNow,
  paypageUrl: cfg.PUBLIC_PAYPAGE_URL,
  createdTtlMs: cfg.CREATED_TTL,
  pendingTtlMs: cfg.PENDING_TTL,
  captureTtlMs: cfg.CAPTURE_TTL,
  reconcileAfterMs: cfg.RECONCILE_AFTER,
};
relay.start();
svc.onClose("outbox relay", () => relay.stop());
const sweep = { everyMs: cfg.TIMER_SWEEP_MS, now: storeNow };
for (const sweeper of [
  new DueSweeper("expiry", log, { ...sweep, due: repo.dueForExpiry, handle: (id, now) => expireDue(deps, id, now) }),
  new DueSweeper("charges", log, { ...sweep, due: repo.dueCharges, handle: (id, now) => retryCharge(deps, id, now), batchSize: 20, maxBatchesPerTick: 1 }),
  new DueSweeper("card expiry", log, { ...sweep, due: methods.dueForExpiry, handle: (id, now) => expireMethod(deps, id, now) }),
]) {
  sweeper.start();
  svc.onClose(`${sweeper.name} sweeper`, () => sweeper.stop());
}
// Idempotency-Keys past their lifetime: a lookup already ignores them; this keeps the table small.
const keySweeper = new Ticker(() => keys.sweep(storeNow() - IDEMPOTENCY_TTL_MS, 1000), cfg.TIMER_SWEEP_MS, (err) => log.error({ err, sweeper: "idempotency keys" }, "sweep failed"));
keySweeper.start();
svc.onClose("idempotency keys sweeper", () => keySweeper.stop());
if (cfg.RECONCILE_INTERVAL > 0) {
  const reconciler = new Ticker(() => reconcileNow(deps, { olderThanMs: cfg.RECONCILE_AFTER, limit: 200 }), cfg.RECONCILE_INTERVAL, (err) => log.error({ err }, "reconciliation failed"));
  reconciler.start();
  svc.onClose("reconciliation", () => reconciler.stop());
}
const refundSweeper = new RefundSweeper(deps, { everyMs: cfg.TIMER_SWEEP_MS });
refundSweeper.start();
svc.onClose("refund sweeper", () => refundSweeper.stop());

let serving = false;
const app = createServiceApp(log, svc.readiness({ rpc: () => serving }));
app.route("/", providerCallbackRoutes(deps, connectors.list()));
const server = svc.listen({ port: cfg.PAYMENTS_PORT, fetch: app.fetch });

// RPCs wait for the directory snapshot: before it, every shop would look unknown.
await directory.ready;
// Registered last, so first at shutdown: the queue group stops routing here and the requests already taken are answered.
await svc.serve((nc) => servePayments(nc, deps, log));
serving = true;
log.info({ port: server.port, paypageUrl: cfg.PUBLIC_PAYPAGE_URL, connectors: connectors.list().map((c) => c.id), defaultConnector: connectors.defaultId }, "payments ready");
