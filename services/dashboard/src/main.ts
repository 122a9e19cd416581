import { join } from "node:path";
import {
  connectBus,
  createLogger,
  databaseOf,
  Lifecycle,
  loadConfig,
  randomToken,
  resolveNatsUrl,
  servingConfirmed,
  stopServing,
  storeAtStart,
  storeNow,
} from "@payaccept/platform";
import { buildAssets, Csrf } from "@payaccept/web-ui";
import { replicaReady, dashboardEnv } from "./config.ts";
import { openUserStore } from "./store/user-store.ts";
import { PasswordVerifier } from "./users/passwords.ts";
import { serveUserRpcs } from "./users/rpc-handlers.ts";
import { Sessions } from "./users/sessions.ts";
import { createDashboardApp } from "./web/app.ts";
import { Backend } from "./web/backend.ts";
import { Flash } from "./web/flash.ts";

const cfg = loadConfig(dashboardEnv, process.env, replicaReady);
const log = createLogger("dashboard", cfg.LOG_LEVEL);
const lifecycle = new Lifecycle(log);
const secureCookies = new URL(cfg.PUBLIC_DASHBOARD_URL).protocol === "https:";
if (!cfg.DASHBOARD_CSRF_SECRET) log.info("DASHBOARD_CSRF_SECRET unset: a random CSRF key for this process (open forms need a reload after a restart)");

const userStore = await storeAtStart(lifecycle, openUserStore(databaseOf(cfg, "DASHBOARD", "dashboard.db"), { importFrom: cfg.DASHBOARD_IMPORT_FROM, log }));

const nc = await connectBus(resolveNatsUrl(cfg), "dashboard", log, cfg);
lifecycle.onClose("nats", () => nc.drain());

const backend = new Backend(nc, { normalMs: cfg.NATS_REQUEST_TIMEOUT_MS, slowMs: cfg.DASHBOARD_SLOW_CALL_TIMEOUT });
// The store's clock: sessions, sign-in throttles and one-shot messages end at the same time on every replica.
const now = storeNow;
const users = { users: userStore, backend, passwords: new PasswordVerifier(), log, now };
serveUserRpcs(nc, users);
lifecycle.onClose("rpc", () => stopServing(nc));
await servingConfirmed(nc);

const app = createDashboardApp({
  users,
  sessions: new Sessions(userStore, { ttlMs: cfg.DASHBOARD_SESSION_TTL, secure: secureCookies, now }),
  csrf: new Csrf({ secret: cfg.DASHBOARD_CSRF_SECRET ?? randomToken(32), secure: secureCookies, cookie: "dash_csrf" }),
  flash: new Flash(userStore, now),
  backend,
  now,
  secureCookies,
  trustedProxies: cfg.TRUSTED_PROXIES,
  log,
  assets: await buildAssets({ stylesheet: join(import.meta.dir, "web/assets/dashboard.css"), script: join(import.meta.dir, "web/client/dashboard.ts") }),
  readiness: { nats: () => !nc.isClosed() },
});
const server = Bun.serve({ hostname: cfg.HOST, port: cfg.DASHBOARD_PORT, fetch: (req, server) => app.fetch(req, { server }) });
lifecycle.onClose("http", () => server.stop());
log.info({ port: server.port }, "dashboard listening");
