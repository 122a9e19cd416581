import { join } from "node:path";
import { loadConfig, startService } from "@payaccept/platform";
import { buildAssets, Csrf } from "@payaccept/web-ui";
import { createPaypageApp } from "./app.tsx";
import { CheckoutClient } from "./checkout.ts";
import { DEV_PAYPAGE_CSRF_SECRET, paypageEnv } from "./config.ts";
import { StatusFeed } from "./status-feed.ts";

const svc = startService("paypage", loadConfig(paypageEnv));
const { cfg, log } = svc;
if (cfg.PAYPAGE_CSRF_SECRET === DEV_PAYPAGE_CSRF_SECRET) log.warn({ variables: ["PAYPAGE_CSRF_SECRET"] }, "using the published development secret; set it outside development");
const secureCookies = new URL(cfg.PUBLIC_PAYPAGE_URL).protocol === "https:";

const assets = await buildAssets({ stylesheet: join(import.meta.dir, "assets/pay.css"), script: join(import.meta.dir, "client/pay.ts") });
const nc = await svc.bus();
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
  readiness: svc.readiness(),
});
// Live-status streams stay open for minutes: the idle timeout only has to outlast their pings, and
// they end first at shutdown (`streams`).
const server = svc.listen({ port: cfg.PAYPAGE_PORT, fetch: app.fetch, idleTimeout: 60, streams: closing });
log.info({ port: server.port }, "payment page listening");
