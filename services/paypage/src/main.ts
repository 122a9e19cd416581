import { join } from "node:path";
import { connectBus, createLogger, Lifecycle, loadConfig, resolveNatsUrl } from "@payaccept/platform";
import { buildAssets, Csrf } from "@payaccept/web-ui";
import { createPaypageApp } from "./app.tsx";
import { CheckoutClient } from "./checkout.ts";
import { DEV_PAYPAGE_CSRF_SECRET, paypageEnv } from "./config.ts";
import { StatusFeed } from "./status-feed.ts";

const cfg = loadConfig(paypageEnv);
const log = createLogger("paypage", cfg.LOG_LEVEL);
if (cfg.PAYPAGE_CSRF_SECRET === DEV_PAYPAGE_CSRF_SECRET) log.warn({ variables: ["PAYPAGE_CSRF_SECRET"] }, "using the published development secret; set it outside development");
const lifecycle = new Lifecycle(log);
const secureCookies = new URL(cfg.PUBLIC_PAYPAGE_URL).protocol === "https:";

const assets = await buildAssets({ stylesheet: join(import.meta.dir, "assets/pay.css"), script: join(import.meta.dir, "client/pay.ts") });
const nc = await connectBus(resolveNatsUrl(cfg), "paypage", log, cfg);
lifecycle.onClose("nats", () => nc.drain());
const feed = new StatusFeed(nc, log);
const closing = new AbortController();

const app = createPaypageApp({
  log,
  checkout: new CheckoutClient(nc, { readMs: cfg.NATS_REQUEST_TIMEOUT_MS, startMs: cfg.PAYPAGE_START_TIMEOUT }),
  feed,
  csrf: new Csrf({ secret: cfg.PAYPAGE_CSRF_SECRET, secure: secureCookies, cookie: "pp_csrf" }),
  assets,
  secureCookies,
  recheckMs: cfg.PAYPAGE_STATUS_RECHECK,
  closing: closing.signal,
  readiness: { nats: () => !nc.isClosed() },
});
// Live-status streams stay open for minutes: the idle timeout only has to outlast their pings.
const server = Bun.serve({ port: cfg.PAYPAGE_PORT, hostname: cfg.HOST, fetch: app.fetch, idleTimeout: 60 });
lifecycle.onClose("http", () => server.stop());
lifecycle.onClose("live streams", () => closing.abort());
log.info({ port: server.port }, "payment page listening");
