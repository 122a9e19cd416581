import type { ApiFacts } from "@payaccept/contracts";
import { commonEnv, duration, port, trustedProxies, webhookDeliveryEnv, type ConfigCheck } from "@payaccept/platform";
import { z } from "zod";
import { MAX_REPLICA_OVERSHOOT, replicaShare, sharesFit } from "./http/rate-limiter.ts";

const perMinute = (dflt: number) => z.coerce.number().int().min(1).max(1_000_000).default(dflt);

export const gatewayEnv = {
  ...commonEnv,
  GATEWAY_PORT: port(3000),
  /** Spec §8, totals over GATEWAY_REPLICAS replicas behind an even balancer (docs/gateway.md). */
  RATE_LIMIT_PER_METHOD: perMinute(600),
  RATE_LIMIT_BALANCE: perMinute(60),
  RATE_LIMIT_PER_IP: perMinute(2000),
  /** Gateway replicas sharing the load evenly: each enforces ⌈limit / N⌉ of every limit. */
  GATEWAY_REPLICAS: z.coerce.number().int().min(1).max(1000).default(1),
  /** Comma-separated CIDRs of our own reverse proxies; only then is X-Forwarded-For read. */
  TRUSTED_PROXIES: trustedProxies(),
  /** Payments the read model keeps for gets and lookups (docs/gateway.md, "Reads from the read model"); 0 asks payments for every read. */
  GATEWAY_READ_MODEL_SIZE: z.coerce.number().int().min(0).max(10_000_000).default(50_000),
  /** A payment kept longer than this is asked of payments again, whatever the notices said. */
  GATEWAY_READ_MODEL_MAX_AGE: duration("30s"),
  /**
   * The read model keeps nothing for this long after the gateway's start and after each answer of
   * a payments process that sends no change notices (payments is asked 4 times a second meanwhile).
   */
  GATEWAY_READ_MODEL_HOLD: duration("10s"),
  /** Bound of the test webhook, which waits for the merchant's receiver: keep it above the dispatcher's WEBHOOK_TIMEOUT_MS. */
  GATEWAY_SLOW_CALL_TIMEOUT: duration("15s"),
  /** Not acted on here: the OpenAPI document states the dispatcher's schedule, read from the same variables. */
  ...webhookDeliveryEnv,
};

export type GatewayConfig = z.output<z.ZodObject<typeof gatewayEnv>>;

/** The largest request body read: a create request is a few KB even with 4 KB of metadata. */
export const MAX_BODY_BYTES = 64 * 1024;

/** What the API's OpenAPI document states about this configuration. */
export const apiFacts = (cfg: GatewayConfig): ApiFacts => ({
  rateLimitsPerMinute: { perMethod: cfg.RATE_LIMIT_PER_METHOD, balance: cfg.RATE_LIMIT_BALANCE, perIp: cfg.RATE_LIMIT_PER_IP },
  maxBodyBytes: MAX_BODY_BYTES,
  webhookTimeoutMs: cfg.WEBHOOK_TIMEOUT_MS,
  webhookRetryDelaysMs: cfg.WEBHOOK_RETRY_DELAYS,
});

const LIMITS = ["RATE_LIMIT_PER_METHOD", "RATE_LIMIT_BALANCE", "RATE_LIMIT_PER_IP"] as const;

/** N replicas' rounded-up shares of a small limit can overshoot it by far: such a pairing is refused. */
export const limitsFitReplicas: ConfigCheck<typeof gatewayEnv> = (cfg) =>
  LIMITS.filter((name) => !sharesFit(cfg[name], cfg.GATEWAY_REPLICAS)).map(
    (name) =>
      `${name}=${cfg[name]} over GATEWAY_REPLICAS=${cfg.GATEWAY_REPLICAS}: shares of ${replicaShare(cfg[name], cfg.GATEWAY_REPLICAS)} ` +
      `add up to more than ${MAX_REPLICA_OVERSHOOT * 100} % over the limit; raise the limit or use fewer replicas`,
  );
