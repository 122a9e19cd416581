import { z } from "zod";
import { DEV_ACQUIRER_API_KEY, DEV_ACQUIRER_CALLBACK_SECRET } from "@payaccept/contracts";
import { commonEnv, databaseEnv, duration, port, type ConfigCheck } from "@payaccept/platform";

const baseUrl = (dflt: string) =>
  z
    .url()
    .default(dflt)
    .transform((u) => u.replace(/\/+$/, ""));

/** Every variable payments reads; docs/payments.md has the table. */
export const paymentsEnv = {
  ...commonEnv,
  ...databaseEnv("PAYMENTS"),
  /** With PAYMENTS_DATABASE_URL: the payments.db of a deployment moving over, copied once into the empty store. */
  PAYMENTS_IMPORT_FROM: z.string().min(1).optional(),
  PAYMENTS_PORT: port(3004),
  PUBLIC_PAYPAGE_URL: baseUrl("http://localhost:3001"),
  ACQUIRER_URL: baseUrl("http://127.0.0.1:3003"),
  PAYMENTS_CALLBACK_URL: z.url().default("http://127.0.0.1:3004/provider/callback"),
  ACQUIRER_API_KEY: z.string().min(1).default(DEV_ACQUIRER_API_KEY),
  ACQUIRER_CALLBACK_SECRET: z.string().min(1).default(DEV_ACQUIRER_CALLBACK_SECRET),
  /** Below the callers' NATS_REQUEST_TIMEOUT_MS, so a hung provider is a clean 503 to them, not a timeout. */
  ACQUIRER_TIMEOUT_MS: duration("2500"),
  CREATED_TTL: duration("24h"),
  PENDING_TTL: duration("20m"),
  /** How long a hold waits for its capture after the buyer paid it: 7 days, the NSPK rule (docs/payments.md, "Two-stage payments"). */
  CAPTURE_TTL: duration("7d"),
  /**
   * How long a live charge's driver has before the charge sweeper drives it again (looks its
   * outcome up by the charge's id, or charges it): above one acquirer call.
   */
  CHARGE_RETRY_MS: duration("15000"),
  TIMER_SWEEP_MS: duration("1000"),
  /**
   * How long a PENDING refund's driver has before the refund sweeper drives it again: above one
   * balance call plus one acquirer call, so a refund in hand is rarely driven twice (harmless if it is).
   */
  REFUND_RETRY_MS: duration("15000"),
  OUTBOX_SWEEP_MS: duration("5000"),
  /** Test hook: how long the relay waits before each publishing pass (0 in production). */
  OUTBOX_RELAY_DELAY_MS: duration("0"),
};

/** An import names the SQLite file a move to PostgreSQL starts from: without the URL it has nowhere to go. */
export const importNeedsUrl: ConfigCheck<typeof paymentsEnv> = (cfg) =>
  cfg.PAYMENTS_IMPORT_FROM && !cfg.PAYMENTS_DATABASE_URL ? ["PAYMENTS_IMPORT_FROM: only for a move to PostgreSQL (set PAYMENTS_DATABASE_URL)"] : [];
