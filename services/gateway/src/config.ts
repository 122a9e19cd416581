import { commonEnv, duration, port, trustedProxies } from "@payaccept/platform";
import { z } from "zod";

const perMinute = (dflt: number) => z.coerce.number().int().min(1).max(1_000_000).default(dflt);

export const gatewayEnv = {
  ...commonEnv,
  GATEWAY_PORT: port(3000),
  /** Spec §8, per gateway replica (see docs/gateway.md for sizing with several replicas). */
  RATE_LIMIT_PER_METHOD: perMinute(600),
  RATE_LIMIT_BALANCE: perMinute(60),
  RATE_LIMIT_PER_IP: perMinute(2000),
  /** Comma-separated CIDRs of our own reverse proxies; only then is X-Forwarded-For read. */
  TRUSTED_PROXIES: trustedProxies(),
  /** Bound of the test webhook, which waits for the merchant's receiver: keep it above the dispatcher's WEBHOOK_TIMEOUT_MS. */
  GATEWAY_SLOW_CALL_TIMEOUT: duration("15s"),
};
