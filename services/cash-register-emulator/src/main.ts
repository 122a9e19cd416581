import { join } from "node:path";
import { DEV_CASH_REGISTER_API_KEY } from "@payaccept/contracts";
import { loadConfig, openStore, startService } from "@payaccept/platform";
import { cashRegisterEnv } from "./config.ts";
import { createRegisterApp } from "./http/api.ts";
import { schema } from "./store/schema.ts";

const svc = startService("cash-register-emulator", loadConfig(cashRegisterEnv));
const { cfg, log } = svc;
if (cfg.CASH_REGISTER_API_KEY === DEV_CASH_REGISTER_API_KEY) log.warn({ variables: ["CASH_REGISTER_API_KEY"] }, "using the published development key; set it outside development");

const store = await svc.store(openStore(join(cfg.DATA_DIR, "cash-register.db"), schema, join(import.meta.dir, "../drizzle")), (s) => s.sqlite.close());

const app = createRegisterApp({
  log,
  db: store.db,
  apiKey: cfg.CASH_REGISTER_API_KEY,
  sandbox: { mode: "normal", delayMs: cfg.CASH_REGISTER_DELAY },
  readiness: svc.readiness(),
});
const server = svc.listen({ port: cfg.CASH_REGISTER_PORT, fetch: app.fetch });
log.info({ port: server.port, delayMs: cfg.CASH_REGISTER_DELAY }, "cash register emulator listening");
