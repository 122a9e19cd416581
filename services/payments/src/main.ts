import { jetstream } from "@nats-io/jetstream";
import { devProviderSecretsInUse, rpcs } from "@payaccept/contracts";
import {
  call,
  connectBus,
  connectionUp,
  createLogger,
  createServiceApp,
  DirectoryCache,
  ensurePaymentsStream,
  databaseOf,
  Lifecycle,
  loadConfig,
  openDirectoryBucket,
  resolveNatsUrl,
  servingConfirmed,
  stopServing,
  storeAtStart,
} from "@payaccept/platform";
import { announceTransitions } from "./app/announce.ts";
import type { PaymentsDeps } from "./app/deps.ts";
import { importNeedsUrl, paymentsEnv } from "./config.ts";
import { providerCallbackRoutes } from "./http/provider-callback-route.ts";
import { countEndedRefund, registerOutboxGauges, registerRefundGauges } from "./metrics.ts";
import { jetstreamPublisher } from "./outbox/jetstream-publisher.ts";
import { OutboxRelay } from "./outbox/relay.ts";
import { acquirerHttp } from "./provider/acquirer-http.ts";
import { servePayments } from "./rpc/serve-payments.ts";
import { openPaymentsStore } from "./store/payments-store.ts";
import { ExpirySweeper } from "./timers/expiry-sweeper.ts";
import { RefundSweeper } from "./timers/refund-sweeper.ts";

const cfg = loadConfig(paymentsEnv, process.env, importNeedsUrl);
const log = createLogger("payments", cfg.LOG_LEVEL);
for (const variable of devProviderSecretsInUse(cfg)) log.warn({ variable }, "using the published development value; set a real secret outside development");
const life = new Lifecycle(log);


const nc = await connectBus(resolveNatsUrl(cfg), "payments", log, cfg);
life.onClose("nats", () => nc.drain());
const natsUp = connectionUp(nc);
await ensurePaymentsStream(nc);
const directoryBucket = await openDirectoryBucket(nc);
const directory = new DirectoryCache(directoryBucket, log, nc);
life.onClose("directory", () => directory.stop());

// The relay is woken by the store's after-commit hooks, so it is made before the store and started after.
let wakeRelay = () => {};
const announce = announceTransitions(log, () => wakeRelay());
const store = await storeAtStart(
  life,
  openPaymentsStore(
    databaseOf(cfg, "PAYMENTS", "payments.db"),
    {
      onCommitted: announce,
      onEnded: (ended) => {
        const { refund, requestId } = ended;
        log.info({ requestId, refundId: refund.id, paymentId: refund.paymentId, status: refund.status, amountKopecks: refund.amountKopecks, failureCode: refund.failureCode }, "refund ended");
        countEndedRefund(ended);
        wakeRelay();
      },
      onCallbackError: (err) => log.error({ err }, "after-commit callback failed"),
    },
    { importFrom: cfg.PAYMENTS_IMPORT_FROM, log },
  ),
);
const { payments: repo, refunds, outbox } = store;
registerOutboxGauges(outbox);
const relay = new OutboxRelay(outbox, jetstreamPublisher(nc, jetstream(nc), cfg.NATS_REQUEST_TIMEOUT_MS), log, {
  delayMs: cfg.OUTBOX_RELAY_DELAY_MS,
  sweepMs: cfg.OUTBOX_SWEEP_MS,
});
wakeRelay = () => relay.wake();
registerRefundGauges(refunds);
const deps: PaymentsDeps = {
  repo,
  refunds,
  refundLeaseMs: cfg.REFUND_RETRY_MS,
  shops: { shop: (shopId) => directory.shopOrRead(shopId) },
  provider: acquirerHttp({
    baseUrl: cfg.ACQUIRER_URL,
    apiKey: cfg.ACQUIRER_API_KEY,
    callbackUrl: cfg.PAYMENTS_CALLBACK_URL,
    timeoutMs: cfg.ACQUIRER_TIMEOUT_MS,
  }),
  balance: {
    reserveRefund: (req, requestId) => call(nc, rpcs.balance.reserveRefund, req, cfg.NATS_REQUEST_TIMEOUT_MS, requestId),
  },
  log,
  now: Date.now,
  paypageUrl: cfg.PUBLIC_PAYPAGE_URL,
  createdTtlMs: cfg.CREATED_TTL,
  pendingTtlMs: cfg.PENDING_TTL,
};
const sweeper = new ExpirySweeper(repo, log, { everyMs: cfg.TIMER_SWEEP_MS });
relay.start();
life.onClose("outbox relay", () => relay.stop());
sweeper.start();
life.onClose("expiry sweeper", () => sweeper.stop());
const refundSweeper = new RefundSweeper(deps, { everyMs: cfg.TIMER_SWEEP_MS });
refundSweeper.start();
life.onClose("refund sweeper", () => refundSweeper.stop());

let serving = false;
const app = createServiceApp(log, {
  nats: natsUp,
  rpc: () => serving,
});
app.route("/", providerCallbackRoutes(deps, cfg.ACQUIRER_CALLBACK_SECRET));
const server = Bun.serve({ hostname: cfg.HOST, port: cfg.PAYMENTS_PORT, fetch: app.fetch });
life.onClose("http", () => server.stop());

// RPCs wait for the directory snapshot: before it, every shop would look unknown.
await directory.ready;
servePayments(nc, deps, log);
await servingConfirmed(nc);
serving = true;
// First at shutdown: the queue group stops routing here and the requests already taken are answered.
life.onClose("rpc", () => stopServing(nc));
log.info({ port: server.port, paypageUrl: cfg.PUBLIC_PAYPAGE_URL, acquirerUrl: cfg.ACQUIRER_URL }, "payments ready");
