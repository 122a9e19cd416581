import { join } from "node:path";
import {
  connectBus,
  connectionUp,
  createLogger,
  createServiceApp,
  databaseOf,
  Lifecycle,
  loadConfig,
  openDirectoryBucketForWrites,
  resolveNatsUrl,
  servingConfirmed,
  stopServing,
  storeAtStart,
  storeNow,
} from "@payaccept/platform";
import { directoryEnv } from "./config.ts";
import { KvPublisher } from "./kv-publisher.ts";
import { serveDirectory } from "./rpc-handlers.ts";
import { openDirectoryStore } from "./store/directory-store.ts";

const cfg = loadConfig(directoryEnv);
const log = createLogger("directory", cfg.LOG_LEVEL);
const lifecycle = new Lifecycle(log);

const choice = databaseOf(cfg, "DIRECTORY", "directory.db");
const store = await storeAtStart(lifecycle, openDirectoryStore(choice, log));
for (const from of cfg.DIRECTORY_IMPORT_FROM ?? (choice.engine === "sqlite" ? [join(cfg.DATA_DIR, "dashboard.db")] : [])) {
  const imported = await store.importLegacy(from);
  if (!imported) continue;
  log.warn({ imported, from }, "directory imported from an older store; never again from that file");
  break;
}

const nc = await connectBus(resolveNatsUrl(cfg), "directory", log, cfg);
lifecycle.onClose("nats", () => nc.drain());
// A write reads the entry and then writes it: both fit in the caller's timeout, so a bucket that does
// not answer becomes "saved, not yet in effect" (and a resync) rather than the caller's own timeout.
const publisher = new KvPublisher(store, () => openDirectoryBucketForWrites(nc, Math.floor(cfg.NATS_REQUEST_TIMEOUT_MS / 3)), log);
lifecycle.onClose("directory publisher", () => publisher.stop());
await publisher.resyncAll();
void (async () => {
  // NATS may come back without its store (a wiped or replaced server): publish everything again.
  for await (const s of nc.status()) if (s.type === "reconnect") publisher.scheduleResync();
})();

serveDirectory(nc, { store, publisher, policy: { allowPrivate: cfg.WEBHOOK_ALLOW_PRIVATE }, log, now: storeNow });
lifecycle.onClose("rpc", () => stopServing(nc));
await servingConfirmed(nc);

const app = createServiceApp(log, { nats: connectionUp(nc) });
const server = Bun.serve({ hostname: cfg.HOST, port: cfg.DIRECTORY_PORT, fetch: app.fetch });
lifecycle.onClose("http", () => server.stop());
log.info({ port: server.port }, "directory listening");
