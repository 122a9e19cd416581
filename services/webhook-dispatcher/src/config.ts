import { commonEnv, databaseEnv, duration, flag, loadConfig, port, webhookDeliveryEnv } from "@payaccept/platform";
import { z } from "zod";

const count = (min: number, max: number, dflt: number) => z.coerce.number().int().min(min).max(max).default(dflt);

export const dispatcherEnv = {
  ...commonEnv,
  ...databaseEnv("WEBHOOKS"),
  /** A move to PostgreSQL: the old webhooks.db, copied once into the empty store (docs/webhooks.md). */
  WEBHOOKS_IMPORT_FROM: z.string().min(1).optional(),
  WEBHOOKS_PORT: port(3006),
  ...webhookDeliveryEnv,
  /** Development and tests only: deliver to loopback and private addresses. */
  WEBHOOK_ALLOW_PRIVATE: flag(false),
  /** Attempts in flight at once in this process, all shops together. */
  WEBHOOK_CONCURRENCY: count(1, 1024, 64),
  /** Attempts in flight at once to one shop's endpoint, so one slow endpoint cannot take every slot. */
  WEBHOOK_PER_SHOP_CONCURRENCY: count(1, 64, 4),
  /**
   * Deliveries JetStream lets the dispatcher hold unacknowledged: every delivery waiting for its
   * next attempt counts, so once this is reached every shop waits. -1 is unlimited.
   */
  WEBHOOK_MAX_ACK_PENDING: z.coerce
    .number()
    .int()
    .min(-1)
    .max(10_000_000)
    .refine((v) => v !== 0, { message: "must be positive, or -1 for unlimited" })
    .default(1_000_000),
  /** How long an attempt may go unanswered before JetStream hands the delivery out again (a crashed dispatcher). */
  WEBHOOK_ACK_WAIT: duration("60s"),
  /**
   * How long a payment event taken by the intake may go unacked before JetStream hands it out again
   * (a crashed dispatcher). Intake only writes a row, so a short wait is plenty.
   */
  WEBHOOK_INTAKE_ACK_WAIT: duration("30s"),
};

export type DispatcherConfig = ReturnType<typeof loadDispatcherConfig>;

/** The ack wait must cover a whole attempt, or a live attempt would be handed out twice. */
const ACK_WAIT_MARGIN_MS = 1000;

export function loadDispatcherConfig(env: Record<string, string | undefined> = process.env) {
  const cfg = loadConfig(dispatcherEnv, env, (c) =>
    c.WEBHOOKS_IMPORT_FROM && !c.WEBHOOKS_DATABASE_URL ? ["WEBHOOKS_IMPORT_FROM: only for a move to PostgreSQL (set WEBHOOKS_DATABASE_URL)"] : [],
  );
  if (cfg.WEBHOOK_ACK_WAIT < cfg.WEBHOOK_TIMEOUT_MS + ACK_WAIT_MARGIN_MS) {
    console.error(
      `invalid configuration: WEBHOOK_ACK_WAIT: must be at least WEBHOOK_TIMEOUT_MS + ${ACK_WAIT_MARGIN_MS} ms (${cfg.WEBHOOK_TIMEOUT_MS + ACK_WAIT_MARGIN_MS} ms)`,
    );
    process.exit(78);
  }
  return cfg;
}
