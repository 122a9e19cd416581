import { z } from "zod";
import { commonEnv, duration, port, trustedProxies } from "@payaccept/platform";

/** Every variable the dashboard reads; docs/dashboard.md has the table. */
export const dashboardEnv = {
  ...commonEnv,
  DASHBOARD_PORT: port(3002),
  /** The dashboard's public address; over https its cookies are Secure and __Host- prefixed. */
  PUBLIC_DASHBOARD_URL: z.url().default("http://localhost:3002"),
  /**
   * HMAC key of the forms' CSRF tokens. Unset: a random key per process start (the dashboard runs
   * as one replica), so forms left open across a restart ask for a reload.
   */
  DASHBOARD_CSRF_SECRET: z.string().min(32).optional(),
  /** How long a sign-in lasts, from the moment of signing in. */
  DASHBOARD_SESSION_TTL: duration("12h"),
  /**
   * Bound of the requests that wait for someone outside: a refund (the acquirer) and the test
   * webhook (the merchant's endpoint). Keep it above the dispatcher's WEBHOOK_TIMEOUT_MS.
   */
  DASHBOARD_SLOW_CALL_TIMEOUT: duration("15s"),
  /** Our own reverse proxies (CIDRs); only then is X-Forwarded-For read for the sign-in throttle. */
  TRUSTED_PROXIES: trustedProxies(),
};
export type DashboardConfig = z.output<z.ZodObject<typeof dashboardEnv>>;
