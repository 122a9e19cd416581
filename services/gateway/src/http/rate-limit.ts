import type { Context, MiddlewareHandler } from "hono";
import { clientIp, ipRateKey, jsonError, type TrustedProxies } from "@payaccept/platform";
import type { GatewayEnv } from "./env.ts";
import type { RateDecision, SlidingWindowLimiter } from "./rate-limiter.ts";

/** The decision closest to refusal: fewest remaining, then the smallest limit. */
function tightest(decisions: RateDecision[]): RateDecision | undefined {
  return decisions.reduce<RateDecision | undefined>(
    (t, d) => (!t || d.remaining < t.remaining || (d.remaining === t.remaining && d.limit < t.limit) ? d : t),
    undefined,
  );
}

function count(c: Context<GatewayEnv>, limiter: SlidingWindowLimiter, key: string): Response | undefined {
  const d = limiter.hit(key);
  c.get("rateDecisions").push(d);
  if (d.allowed) return undefined;
  return jsonError(c, 429, `rate limit exceeded: at most ${d.limit} requests per minute; retry in ${d.retryAfterSeconds} s`, {
    "Retry-After": String(d.retryAfterSeconds),
  });
}

/**
 * The per-IP cap over the whole API, checked before authentication so that floods of bad keys
 * are capped too. Also writes the RateLimit-* headers of every /api response, from whichever
 * limit the request came closest to.
 */
export function limitPerIp(limiter: SlidingWindowLimiter, trusted: TrustedProxies): MiddlewareHandler<GatewayEnv> {
  return async (c, next) => {
    c.set("rateDecisions", []);
    const remote = c.env.server.requestIP(c.req.raw)?.address ?? "unknown";
    const ip = clientIp(remote, c.req.header("x-forwarded-for"), trusted);
    c.set("log", c.get("log").child({ ip }));
    const refused = count(c, limiter, `ip:${ipRateKey(ip)}`);
    if (!refused) await next();
    const res = refused ?? c.res;
    const d = tightest(c.get("rateDecisions"))!;
    res.headers.set("RateLimit-Limit", String(d.limit));
    res.headers.set("RateLimit-Remaining", String(d.remaining));
    res.headers.set("RateLimit-Reset", String(d.resetSeconds));
    return res;
  };
}

/** A per-key limit of one API method (route template + HTTP method); needs requireApiKey first. */
export function limitPerKey(limiter: SlidingWindowLimiter): MiddlewareHandler<GatewayEnv> {
  return async (c, next) => {
    const refused = count(c, limiter, `${c.get("keyHash")} ${c.req.method} ${c.req.routePath}`);
    if (refused) return refused;
    await next();
  };
}
