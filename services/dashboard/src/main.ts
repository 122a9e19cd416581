import { join, resolve } from "node:path";
import {
  connectBus,
  createLogger,
  createServiceApp,
  Lifecycle,
  loadConfig,
  openDirectoryBucket,
  openStore,
  resolveNatsUrl,
} from "@payaccept/platform";
import { dashboardEnv } from "./config.ts";
import { KvPublisher } from "./directory/kv-publisher.ts";
import { serveDirectory } from "./directory/rpc-handlers.ts";
import { DirectoryStore } from "./store/directory-store.ts";
import { schema } from "./store/schema.ts";

const cfg = loadConfig(dashboardEnv);
const log = createLogger("dashboard", cfg.LOG_LEVEL);
const lifecycle = new Lifecycle(log);

const db = openStore(join(resolve(cfg.DATA_DIR), "dashboard.db"), schema, join(import.meta.dir, "../drizzle"));
lifecycle.onClose("store", () => db.sqlite.close());
const store = new DirectoryStore(db);

const nc = await connectBus(resolveNatsUrl(cfg), "dashboard", log);
lifecycle.onClose("nats", () => nc.drain());

const publisher = new KvPublisher(store, () => openDirectoryBucket(nc), log);
lifecycle.onClose("directory publisher", () => publisher.stop());
await publisher.resyncAll();
void (async () => {
  // NATS may come back without its store (a wiped or replaced server): publish everything again.
  for await (const s of nc.status()) if (s.type === "reconnect") publisher.scheduleResync();
})();

serveDirectory(nc, { store, publisher, policy: { allowPrivate: cfg.WEBHOOK_ALLOW_PRIVATE }, log, now: Date.now });

const app = createServiceApp(log, { nats: () => !nc.isClosed() });
const server = Bun.serve({ hostname: cfg.HOST, port: cfg.DASHBOARD_PORT, fetch: app.fetch });
lifecycle.onClose("http", () => server.stop());
log.info({ port: server.port }, "dashboard listening");
