import { z } from "zod";
import { CONNECTOR_IDS, ConnectorId } from "@payaccept/contracts";
import { commonEnv, databaseEnv, duration, port, type ConfigCheck } from "@payaccept/platform";
import { asDefinition, connectorsEnv } from "./connectors/registry.ts";

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
  /** Every connector's own variables (connectors/registry.ts): the emulator's ACQUIRER_*, T-Bank's TBANK_*. */
  ...connectorsEnv,
  /** Where a live shop's sessions go when it lists no connector for the method (docs/connectors.md). */
  PAYMENTS_DEFAULT_CONNECTOR: ConnectorId.default("emulator"),
  /** Unanswered calls in a row that open a connector's circuit (its calls then fail at once, and routing fails over). */
  CONNECTOR_CIRCUIT_FAILURES: z.coerce.number().int().min(1).max(1000).default(5),
  /** How long an open circuit stays open before one trial call goes. */
  CONNECTOR_CIRCUIT_OPEN: duration("30s"),
  /** The window of the connector health figures operators read. */
  CONNECTOR_HEALTH_WINDOW: duration("5m"),
  /** How often each replica reconciles with the acquirers (0: never; `bun run admin reconcile` runs one by hand). */
  RECONCILE_INTERVAL: duration("5m"),
  /** What has been pending or uncertain at least this long is looked up at its acquirer by a reconciliation. */
  RECONCILE_AFTER: duration("10m"),
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

/**
 * An import names the SQLite file a move to PostgreSQL starts from: without the URL it has nowhere
 * to go. The default connector must be one this deployment configured; each connector checks its own.
 */
export const paymentsChecks: ConfigCheck<typeof paymentsEnv> = (cfg) => [
  ...(cfg.PAYMENTS_IMPORT_FROM && !cfg.PAYMENTS_DATABASE_URL ? ["PAYMENTS_IMPORT_FROM: only for a move to PostgreSQL (set PAYMENTS_DATABASE_URL)"] : []),
  ...(asDefinition(cfg.PAYMENTS_DEFAULT_CONNECTOR).configured(cfg) ? [] : [`PAYMENTS_DEFAULT_CONNECTOR: ${cfg.PAYMENTS_DEFAULT_CONNECTOR} is not configured here (set its variables, docs/connectors.md)`]),
  ...CONNECTOR_IDS.flatMap((id) => asDefinition(id).check?.(cfg) ?? []),
];
