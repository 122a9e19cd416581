import { join } from "node:path";
import { DEV_CASH_REGISTER_API_KEY } from "@payaccept/contracts";
import { createLogger, Lifecycle, loadConfig, openStore } from "@payaccept/platform";
import { cashRegisterEnv } from "./config.ts";
import { createRegisterApp } from "./http/api.ts";
import { schema } from "./store/schema.ts";

const cfg = loadConfig(cashRegisterEnv);
const log = createLogger("cash-register-emulator", cfg.LOG_LEVEL);
if (cfg.CASH_REGISTER_API_KEY === DEV_CASH_REGISTER_API_KEY) log.warn({ variables: ["CASH_REGISTER_API_KEY"] }, "using the published development key; set it outside development");
const lifecycle = new Lifecycle(log);

const store = openStore(join(cfg.DATA_DIR, "cash-register.db"), schema, join(import.meta.dir, "../drizzle"));
lifecycle.onClose("store", () => store.sqlite.close());

const app = createRegisterApp({
  log,
  db: store.db,
  apiKey: cfg.CASH_REGISTER_API_KEY,
  sandbox: { mode: "normal", delayMs: cfg.CASH_REGISTER_DELAY },
  readiness: { store: () => store.sqlite.query("select 1").get() !== null },
});
const server = Bun.serve({ port: cfg.CASH_REGISTER_PORT, hostname: cfg.HOST, fetch: app.fetch });
lifecycle.onClose("http", () => server.stop());
log.info({ port: server.port, delayMs: cfg.CASH_REGISTER_DELAY }, "cash register emulator listening");
