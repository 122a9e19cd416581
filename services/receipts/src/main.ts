import { DEV_CASH_REGISTER_API_KEY, PAYMENTS_STREAM } from "@payaccept/contracts";
import { createServiceApp, databaseOf, registerConsumerGauges, startService, storeNow } from "@payaccept/platform";
import { loadReceiptsConfig } from "./config.ts";
import { registerReceiptGauges } from "./metrics.ts";
import { consumeStream, handleStreamMessage, RECEIPTS_DURABLE } from "./event-consumer.ts";
import { cashRegisterHttp } from "./register/cash-register-http.ts";
import type { FiscalRegisterPort } from "./register/port.ts";
import { routedRegister } from "./register/routed-register.ts";
import { serveReceiptsRpcs } from "./rpc-handlers.ts";
import { ReceiptSender } from "./sender.ts";
import { openReceiptsStore } from "./store/open-receipts-store.ts";

const svc = startService("receipts", loadReceiptsConfig());
const { cfg, log } = svc;
if (cfg.CASH_REGISTER_API_KEY === DEV_CASH_REGISTER_API_KEY) log.warn({ variables: ["CASH_REGISTER_API_KEY"] }, "using the published development key; set it outside development");
// The store's clock: the receipts' leases are compared on it by every replica, on any host.
const now = storeNow;

const store = await svc.store(openReceiptsStore(databaseOf(cfg, "RECEIPTS", "receipts.db"), { importFrom: cfg.RECEIPTS_IMPORT_FROM, log }));
registerReceiptGauges(store);

const nc = await svc.bus();

const emulator = cashRegisterHttp({ baseUrl: cfg.CASH_REGISTER_URL, apiKey: cfg.CASH_REGISTER_API_KEY, timeoutMs: cfg.CASH_REGISTER_TIMEOUT });
// АТОЛ's connector is loaded only by a deployment that registers through it.
const atol =
  cfg.atol &&
  (await import("./register/atol/atol-register.ts")).atolRegister({
    ...cfg.atol,
    baseUrl: cfg.ATOL_BASE_URL,
    callbackUrl: cfg.ATOL_CALLBACK_URL,
    callbackWaitMs: cfg.ATOL_CALLBACK_WAIT,
    tokenRenewAfterMs: cfg.ATOL_TOKEN_RENEW_AFTER,
    timeoutMs: cfg.CASH_REGISTER_TIMEOUT,
    log,
  });
const register: FiscalRegisterPort = atol ? routedRegister(atol, emulator) : emulator;
const policy = { baseMs: cfg.RECEIPTS_RETRY_BASE, capMs: cfg.RECEIPTS_RETRY_CAP, maxAttempts: cfg.RECEIPTS_MAX_ATTEMPTS };

const sender = new ReceiptSender({ store, register, policy, callTimeoutMs: cfg.CASH_REGISTER_TIMEOUT, log, now });
sender.start();
svc.onClose("sender", () => sender.stop());

const consumer = await consumeStream(
  nc,
  async (m) => {
    if ((await handleStreamMessage(m, store, log, now)) === "created") sender.poke();
  },
  log,
);
// Without its consumer no new receipt is ever made.
svc.essential("stream events", consumer);
await svc.serve((nc) => serveReceiptsRpcs(nc, { store, log, now, onResend: () => sender.poke() }));
await registerConsumerGauges(nc, [{ stream: PAYMENTS_STREAM, durable: RECEIPTS_DURABLE }], cfg.NATS_REQUEST_TIMEOUT_MS);

const app = createServiceApp(log, svc.readiness({ streamEvents: consumer.isActive }));
if (atol) app.route("/", (await import("./http/atol-callback-route.ts")).atolCallbackRoutes({ store, register, policy, log, now, onDue: () => sender.poke() }));
const server = svc.listen({ port: cfg.RECEIPTS_PORT, fetch: app.fetch });
log.info(
  { port: server.port, register: cfg.RECEIPTS_REGISTER, sandboxRegister: cfg.CASH_REGISTER_URL, ...(atol ? { atol: cfg.ATOL_BASE_URL, atolShops: Object.keys(cfg.atol?.shops ?? {}).length, atolCallbacks: cfg.ATOL_CALLBACK_URL !== undefined } : {}) },
  "receipts service ready",
);
