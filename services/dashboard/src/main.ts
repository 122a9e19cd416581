import { join } from "node:path";
import { AuditTrail, databaseOf, loadConfig, randomToken, startService, storeNow } from "@payaccept/platform";
import { buildAssets, Csrf } from "@payaccept/web-ui";
import { replicaReady, dashboardEnv } from "./config.ts";
import { openUserStore } from "./store/open-user-store.ts";
import { Passwords } from "./users/passwords.ts";
import { serveUserRpcs } from "./users/rpc-handlers.ts";
import { smtpMailer } from "./team/mailer.ts";
import { Sessions, SignInChallenges } from "./users/sessions.ts";
import { createDashboardApp } from "./web/app.ts";
import { Backend } from "./web/backend.ts";
import { Flash } from "./web/flash.ts";

const svc = startService("dashboard", loadConfig(dashboardEnv, process.env, replicaReady));
const { cfg, log } = svc;
const secureCookies = new URL(cfg.PUBLIC_DASHBOARD_URL).protocol === "https:";
if (!cfg.DASHBOARD_CSRF_SECRET) log.info("DASHBOARD_CSRF_SECRET unset: a random CSRF key for this process (open forms need a reload after a restart)");

const userStore = await svc.store(openUserStore(databaseOf(cfg, "DASHBOARD", "dashboard.db"), { importFrom: cfg.DASHBOARD_IMPORT_FROM, log }));

const nc = await svc.bus();

const backend = new Backend(nc, { normalMs: cfg.NATS_REQUEST_TIMEOUT_MS, slowMs: cfg.DASHBOARD_SLOW_CALL_TIMEOUT });
// The store's clock: sessions, sign-in throttles and one-shot messages end at the same time on every replica.
const now = storeNow;
// The team's own security facts (invitations, roles, second factors, locked sign-ins) in the audit log.
const audit = new AuditTrail(nc, log, cfg.NATS_REQUEST_TIMEOUT_MS);
svc.onClose("audit trail", () => audit.close());
const passwords = new Passwords({ memoryKib: cfg.DASHBOARD_PASSWORD_MEMORY_KIB, passes: cfg.DASHBOARD_PASSWORD_PASSES });
const users = { users: userStore, backend, passwords, log, audit, now };
const team = {
  users: userStore,
  passwords,
  audit,
  mailer: cfg.SMTP_URL ? smtpMailer(cfg.SMTP_URL, cfg.SMTP_FROM) : undefined,
  log,
  now,
  inviteTtlMs: cfg.DASHBOARD_INVITE_TTL,
  publicUrl: cfg.PUBLIC_DASHBOARD_URL,
};
if (!team.mailer) log.info("SMTP_URL unset: invitation links are shown to the inviter only, not mailed");
await svc.serve((nc) => serveUserRpcs(nc, users));

const app = createDashboardApp({
  users,
  team,
  sessions: new Sessions(userStore, { ttlMs: cfg.DASHBOARD_SESSION_TTL, secure: secureCookies, now }),
  challenges: new SignInChallenges(userStore, { secure: secureCookies, now }),
  reauthAfterMs: cfg.DASHBOARD_REAUTH_AFTER,
  csrf: new Csrf({ secret: cfg.DASHBOARD_CSRF_SECRET ?? randomToken(32), secure: secureCookies, cookie: "dash_csrf" }),
  flash: new Flash(userStore, now),
  backend,
  now,
  secureCookies,
  trustedProxies: cfg.TRUSTED_PROXIES,
  log,
  assets: await buildAssets({ stylesheet: join(import.meta.dir, "web/assets/dashboard.css"), script: join(import.meta.dir, "web/client/dashboard.ts") }),
  readiness: svc.readiness(),
});
const server = svc.listen({ port: cfg.DASHBOARD_PORT, fetch: (req, server) => app.fetch(req, { server }) });
log.info({ port: server.port }, "dashboard listening");
