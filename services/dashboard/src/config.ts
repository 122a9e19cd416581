import { z } from "zod";
import { MIN_PASSWORD_MEMORY_KIB } from "./users/passwords.ts";
import { commonEnv, databaseEnv, duration, port, trustedProxies, unsetIfEmpty, type ConfigCheck } from "@payaccept/platform";

/** Every variable the dashboard reads; docs/dashboard.md has the table. */
export const dashboardEnv = {
  ...commonEnv,
  ...databaseEnv("DASHBOARD"),
  DASHBOARD_PORT: port(3002),
  /** The dashboard's public address; over https its cookies are Secure and __Host- prefixed. */
  PUBLIC_DASHBOARD_URL: z.url().default("http://localhost:3002"),
  /**
   * HMAC key of the forms' CSRF tokens, the same on every replica. Unset (allowed only for a
   * single replica on SQLite): a random key per process start, so forms left open across a
   * restart ask for a reload.
   */
  DASHBOARD_CSRF_SECRET: z.string().min(32).optional(),
  /**
   * The dashboard.db of a deployment moving to PostgreSQL: its users and sessions are copied once
   * into the empty PostgreSQL store. Only with DASHBOARD_DATABASE_URL.
   */
  DASHBOARD_IMPORT_FROM: z.string().min(1).optional(),
  /** How many dashboard replicas serve behind the balancer; above 1 requires DASHBOARD_CSRF_SECRET. */
  DASHBOARD_REPLICAS: z.coerce.number().int().min(1).max(1000).default(1),
  /** How long a sign-in lasts, from the moment of signing in. */
  DASHBOARD_SESSION_TTL: duration("12h"),
  /**
   * Bound of the requests that wait for someone outside: a refund (the acquirer) and the test
   * webhook (the merchant's endpoint). Keep it above the dispatcher's WEBHOOK_TIMEOUT_MS.
   */
  DASHBOARD_SLOW_CALL_TIMEOUT: duration("15s"),
  /**
   * argon2id's cost for the passwords hashed from now on: memory (KiB) and passes. Bun's defaults;
   * a host that cannot spare 64 MiB per concurrent sign-in may lower it to OWASP's floor, 19 MiB.
   */
  DASHBOARD_PASSWORD_MEMORY_KIB: z.coerce.number().int().min(MIN_PASSWORD_MEMORY_KIB).max(4_194_304).default(65_536),
  DASHBOARD_PASSWORD_PASSES: z.coerce.number().int().min(2).max(10).default(2),
  /** How long an invitation link to a team stays valid. */
  DASHBOARD_INVITE_TTL: duration("72h"),
  /**
   * How long after a person last proved who they are (signing in, or confirming since) a sensitive
   * action (keys, secrets, payouts, the team) goes without asking for their code (or password) again.
   */
  DASHBOARD_REAUTH_AFTER: duration("10m"),
  /**
   * The SMTP server invitations are mailed through: smtp:// (STARTTLS when offered; add
   * ?requireTLS=true to insist) or smtps://, with user:password@ when it asks. Unset: the link is
   * only shown to the inviter, who passes it on.
   */
  SMTP_URL: unsetIfEmpty(z.url({ protocol: /^smtps?$/, error: "must be an smtp:// or smtps:// URL" })),
  /** The From of the mails the dashboard sends. */
  SMTP_FROM: z.string().min(3).default("payaccept <no-reply@localhost>"),
  /** Our own reverse proxies (CIDRs); only then is X-Forwarded-For read for the sign-in throttle. */
  TRUSTED_PROXIES: trustedProxies(),
};
export type DashboardConfig = z.output<z.ZodObject<typeof dashboardEnv>>;

/**
 * Checks across variables. A replicated dashboard needs one CSRF key on every replica, or a form
 * rendered by one is refused by the next. Replicated means DASHBOARD_REPLICAS > 1, or a PostgreSQL
 * store: a shared database is how replicas on several hosts share users and sessions, so it is
 * taken to mean several replicas.
 */
export const replicaReady: ConfigCheck<typeof dashboardEnv> = (cfg) => [
  ...(!cfg.DASHBOARD_CSRF_SECRET && (cfg.DASHBOARD_REPLICAS > 1 || cfg.DASHBOARD_DATABASE_URL)
    ? [
        `DASHBOARD_CSRF_SECRET: required when the dashboard is replicated (${cfg.DASHBOARD_REPLICAS > 1 ? `DASHBOARD_REPLICAS=${cfg.DASHBOARD_REPLICAS}` : "DASHBOARD_DATABASE_URL is set"}): ` +
          "every replica must sign forms with the same key (at least 32 characters)",
      ]
    : []),
  ...(cfg.DASHBOARD_IMPORT_FROM && !cfg.DASHBOARD_DATABASE_URL ? ["DASHBOARD_IMPORT_FROM: only for a move to PostgreSQL (set DASHBOARD_DATABASE_URL)"] : []),
];
