import { DEV_CASH_REGISTER_API_KEY, PAYMENTS_STREAM } from "@payaccept/contracts";
import { createServiceApp, databaseOf, loadConfig, registerConsumerGauges, startService, storeNow } from "@payaccept/platform";
import { importNeedsPostgres, receiptsEnv } from "./config.ts";
import { registerReceiptGauges } from "./metrics.ts";
import { consumeStream, handleStreamMessage, RECEIPTS_DURABLE } from "./event-consumer.ts";
import { cashRegisterHttp } from "./register/cash-register-http.ts";
import { serveReceiptsRpcs } from "./rpc-handlers.ts";
import { ReceiptSender } from "./sender.ts";
import { openReceiptsRepo } from "./store/open-receipts-repo.ts";

const svc = startService("receipts", loadConfig(receiptsEnv, process.env, importNeedsPostgres));
const { cfg, log } = svc;
if (cfg.CASH_REGISTER_API_KEY === DEV_CASH_REGISTER_API_KEY) log.warn({ variables: ["CASH_REGISTER_API_KEY"] }, "using the published development key; set it outside development");
// The store's clock: the receipts' leases are compared on it by every replica, on any host.
const now = storeNow;

const repo = await svc.store(openReceiptsRepo(databaseOf(cfg, "RECEIPTS", "receipts.db"), { importFrom: cfg.RECEIPTS_IMPORT_FROM, log }));
registerReceiptGauges(repo);

const nc = await svc.bus();

const sender = new ReceiptSender({
  repo,
  register: cashRegisterHttp({ baseUrl: cfg.CASH_REGISTER_URL, apiKey: cfg.CASH_REGISTER_API_KEY, timeoutMs: cfg.CASH_REGISTER_TIMEOUT }),
  policy: { baseMs: cfg.RECEIPTS_RETRY_BASE, capMs: cfg.RECEIPTS_RETRY_CAP, maxAttempts: cfg.RECEIPTS_MAX_ATTEMPTS },
  callTimeoutMs: cfg.CASH_REGISTER_TIMEOUT,
  log,
  now,
});
sender.start();
svc.onClose("sender", () => sender.stop());

const consumer = await consumeStream(
  nc,
  async (m) => {
    if ((await handleStreamMessage(m, repo, log, now)) === "created") sender.poke();
  },
  log,
);
// Without its consumer no new receipt is ever made.
svc.essential("stream events", consumer);
await svc.serve((nc) => serveReceiptsRpcs(nc, { repo, log, now, onResend: () => sender.poke() }));
await registerConsumerGauges(nc, [{ stream: PAYMENTS_STREAM, durable: RECEIPTS_DURABLE }], cfg.NATS_REQUEST_TIMEOUT_MS);

const app = createServiceApp(log, svc.readiness({ streamEvents: consumer.isActive }));
const server = svc.listen({ port: cfg.RECEIPTS_PORT, fetch: app.fetch });
log.info({ port: server.port, register: cfg.CASH_REGISTER_URL }, "receipts service ready");
