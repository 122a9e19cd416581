import { join } from "node:path";
import { devProviderSecretsInUse } from "@payaccept/contracts";
import { GroupCommit, loadConfig, openStore, startService } from "@payaccept/platform";
import { CallbackDispatcher } from "./callbacks/dispatcher.ts";
import { acquirerEnv } from "./config.ts";
import { holdSweeper } from "./holds.ts";
import { createAcquirerApp } from "./http/app.tsx";
import { DropAnswers } from "./http/drop-answers.ts";
import { schema } from "./store/schema.ts";

const svc = startService("acquirer-emulator", loadConfig(acquirerEnv));
const { cfg, log } = svc;
const devSecrets = devProviderSecretsInUse(cfg);
if (devSecrets.length > 0) log.warn({ variables: devSecrets }, "using the published development secrets; set them outside development");

const store = await svc.store(openStore(join(cfg.DATA_DIR, "acquirer.db"), schema, join(import.meta.dir, "../drizzle")), (s) => s.sqlite.close());

// The charges and the delivered callbacks of one event-loop turn share a commit (see GroupCommit).
const commits = new GroupCommit(store.sqlite, (err) => log.error({ err }, "a step after a commit failed"));
const dispatcher = new CallbackDispatcher({
  db: store.db,
  commits,
  secret: cfg.ACQUIRER_CALLBACK_SECRET,
  policy: { baseMs: cfg.ACQUIRER_CALLBACK_RETRY_BASE, capMs: cfg.ACQUIRER_CALLBACK_RETRY_CAP, maxAttempts: cfg.ACQUIRER_CALLBACK_MAX_ATTEMPTS },
  timeoutMs: cfg.ACQUIRER_CALLBACK_TIMEOUT,
  log,
});
dispatcher.start();
svc.onClose("callbacks", () => dispatcher.stop());

const sweeper = holdSweeper({ db: store.db, log, onVoided: () => dispatcher.poke() });
sweeper.start();
svc.onClose("holds", () => sweeper.stop());

const app = createAcquirerApp({
  log,
  db: store.db,
  commits,
  dispatcher,
  publicUrl: cfg.ACQUIRER_PUBLIC_URL,
  apiKey: cfg.ACQUIRER_API_KEY,
  callbackSecret: cfg.ACQUIRER_CALLBACK_SECRET,
  holdTtlMs: cfg.ACQUIRER_HOLD_TTL,
  drops: new DropAnswers(),
  readiness: svc.readiness(),
});
const server = svc.listen({ port: cfg.ACQUIRER_PORT, fetch: app.fetch });
log.info({ port: server.port, publicUrl: cfg.ACQUIRER_PUBLIC_URL }, "acquirer emulator listening");
