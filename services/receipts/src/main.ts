import { join } from "node:path";
import { DEV_CASH_REGISTER_API_KEY, PAYMENTS_STREAM } from "@payaccept/contracts";
import {
  connectBus,
  createLogger,
  createServiceApp,
  Lifecycle,
  loadConfig,
  openStore,
  registerConsumerGauges,
  resolveNatsUrl,
  servingConfirmed,
  stopServing,
} from "@payaccept/platform";
import { receiptsEnv } from "./config.ts";
import { registerReceiptGauges } from "./metrics.ts";
import { consumeStream, handleStreamMessage, RECEIPTS_DURABLE } from "./event-consumer.ts";
import { cashRegisterHttp } from "./register/cash-register-http.ts";
import { serveReceiptsRpcs } from "./rpc-handlers.ts";
import { ReceiptSender } from "./sender.ts";
import { createReceiptsRepo } from "./store/receipts-repo.ts";
import { schema } from "./store/schema.ts";

const cfg = loadConfig(receiptsEnv);
const log = createLogger("receipts", cfg.LOG_LEVEL);
if (cfg.CASH_REGISTER_API_KEY === DEV_CASH_REGISTER_API_KEY) log.warn({ variables: ["CASH_REGISTER_API_KEY"] }, "using the published development key; set it outside development");
const lifecycle = new Lifecycle(log);
const now = () => Date.now();

const store = openStore(join(cfg.DATA_DIR, "receipts.db"), schema, join(import.meta.dir, "../drizzle"));
lifecycle.onClose("store", () => store.sqlite.close());
const repo = createReceiptsRepo(store);
registerReceiptGauges(repo);

const nc = await connectBus(resolveNatsUrl(cfg), "receipts", log);
lifecycle.onClose("nats", () => nc.drain());

const sender = new ReceiptSender({
  repo,
  register: cashRegisterHttp({ baseUrl: cfg.CASH_REGISTER_URL, apiKey: cfg.CASH_REGISTER_API_KEY, timeoutMs: cfg.CASH_REGISTER_TIMEOUT }),
  policy: { baseMs: cfg.RECEIPTS_RETRY_BASE, capMs: cfg.RECEIPTS_RETRY_CAP, maxAttempts: cfg.RECEIPTS_MAX_ATTEMPTS },
  callTimeoutMs: cfg.CASH_REGISTER_TIMEOUT,
  log,
});
sender.start();
lifecycle.onClose("sender", () => sender.stop());

const consumer = await consumeStream(
  nc,
  (m) => {
    if (handleStreamMessage(m, repo, log, now) === "created") sender.poke();
  },
  log,
);
// Without its consumer no new receipt is ever made.
lifecycle.essential("stream events", consumer);
serveReceiptsRpcs(nc, { repo, log, now, onResend: () => sender.poke() });
lifecycle.onClose("rpc", () => stopServing(nc));
await servingConfirmed(nc);
await registerConsumerGauges(nc, [{ stream: PAYMENTS_STREAM, durable: RECEIPTS_DURABLE }], cfg.NATS_REQUEST_TIMEOUT_MS);

const app = createServiceApp(log, { nats: () => !nc.isClosed(), streamEvents: consumer.isActive });
const server = Bun.serve({ hostname: cfg.HOST, port: cfg.RECEIPTS_PORT, fetch: app.fetch });
lifecycle.onClose("http", () => server.stop());
log.info({ port: server.port, register: cfg.CASH_REGISTER_URL }, "receipts service ready");
