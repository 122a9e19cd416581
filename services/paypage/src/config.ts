import { z } from "zod";
import { commonEnv, duration, port } from "@payaccept/platform";

export const DEV_PAYPAGE_CSRF_SECRET = "dev-paypage-csrf-secret";

/** Every variable the payment page reads; docs/paypage.md has the table. */
export const paypageEnv = {
  ...commonEnv,
  PAYPAGE_PORT: port(3001),
  /** The page's public address; over https its cookies are Secure and __Host- prefixed. */
  PUBLIC_PAYPAGE_URL: z.url().default("http://localhost:3001"),
  /** HMAC key of the CSRF tokens; every replica must share it. */
  PAYPAGE_CSRF_SECRET: z.string().min(16).default(DEV_PAYPAGE_CSRF_SECRET),
  /** Starting to pay asks the provider for a session, so it may take longer than a plain read. */
  PAYPAGE_START_TIMEOUT: duration("8s"),
  /** How often an open live-status stream re-reads the payment besides reacting to events. */
  PAYPAGE_STATUS_RECHECK: duration("10s"),
};
export type PaypageConfig = z.output<z.ZodObject<typeof paypageEnv>>;
