import { join } from "node:path";
import { AUDIT_STREAM } from "@payaccept/contracts";
import { createServiceApp, databaseOf, loadConfig, openDirectoryBucketForWrites, registerConsumerGauges, startService, storeNow, Ticker } from "@payaccept/platform";
import { AUDIT_DURABLE, keepConsumingAuditEvents } from "./audit/log.ts";
import { directoryEnv } from "./config.ts";
import { expireOverlaps, type DirectoryDeps } from "./directory.ts";
import { KvPublisher } from "./kv-publisher.ts";
import { serveDirectory } from "./rpc-handlers.ts";
import { openDirectoryStore } from "./store/open-directory-store.ts";

/** How often overlaps that ran out are recorded and tidied away. */
const OVERLAP_SWEEP_MS = 2_000;

const svc = startService("directory", loadConfig(directoryEnv));
const { cfg, log } = svc;

const choice = databaseOf(cfg, "DIRECTORY", "directory.db");
const store = await svc.store(openDirectoryStore(choice, log));
for (const from of cfg.DIRECTORY_IMPORT_FROM ?? (choice.engine === "sqlite" ? [join(cfg.DATA_DIR, "dashboard.db")] : [])) {
  const imported = await store.importLegacy(from);
  if (!imported) continue;
  log.warn({ imported, from }, "directory imported from an older store; never again from that file");
  break;
}

const nc = await svc.bus();
// A write reads the entry and then writes it: both fit in the caller's timeout, so a bucket that does
// not answer becomes "saved, not yet in effect" (and a resync) rather than the caller's own timeout.
const publisher = new KvPublisher(store, () => openDirectoryBucketForWrites(nc, Math.floor(cfg.NATS_REQUEST_TIMEOUT_MS / 3)), log);
svc.onClose("directory publisher", () => publisher.stop());
await publisher.resyncAtStart();
void (async () => {
  // NATS may come back without its store (a wiped or replaced server): publish everything again.
  for await (const s of nc.status()) if (s.type === "reconnect") publisher.scheduleResync();
})();

const deps: DirectoryDeps = { store, publisher, policy: { allowPrivate: cfg.WEBHOOK_ALLOW_PRIVATE }, log, now: storeNow, payoutHoldMs: cfg.PAYOUT_ACCOUNT_HOLD };
// Readers refuse an expired key or secret from their own copy at its instant; the sweep records it
// and tidies the store and the bucket a few seconds later.
const sweeper = new Ticker(() => expireOverlaps(deps), OVERLAP_SWEEP_MS, (err) => log.error({ err }, "overlap expiry sweep failed"));
sweeper.start();
svc.onClose("overlap sweeper", () => sweeper.stop());
// The other services' audit events (refunds, payouts, sign-ins); remade whenever NATS loses it.
const auditIntake = keepConsumingAuditEvents(nc, store, storeNow, log);
svc.onClose("audit events", () => auditIntake.stop());

await svc.serve((nc) => serveDirectory(nc, deps));
await registerConsumerGauges(nc, [{ stream: AUDIT_STREAM, durable: AUDIT_DURABLE }], cfg.NATS_REQUEST_TIMEOUT_MS);

const app = createServiceApp(log, svc.readiness({ auditEvents: auditIntake.isActive }));
const server = svc.listen({ port: cfg.DIRECTORY_PORT, fetch: app.fetch });
log.info({ port: server.port }, "directory listening");
