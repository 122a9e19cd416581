import { DomainError } from "@payaccept/contracts";
import type { Context } from "hono";
import { clientIp, ipRateKey, jsonError, type TrustedProxies } from "@payaccept/platform";
import type { Check, GatewayEnv } from "./env.ts";
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
  return jsonError(c, new DomainError("RATE_LIMITED", { limit: d.limit, retryAfterSeconds: d.retryAfterSeconds }), {
    "Retry-After": String(d.retryAfterSeconds),
  });
}

/** Distinct connection sources remembered; past this the memory starts over. */
const MAX_REMEMBERED_SOURCES = 10_000;

/**
 * Connection source (+ X-Forwarded-For) → client address and its counting key. Parsing addresses
 * cost more than the rest of the limit, and a client's requests keep coming from the same source.
 */
function clientAddresses(trusted: TrustedProxies): (remote: string, forwardedFor: string | undefined) => { ip: string; key: string } {
  const known = new Map<string, { ip: string; key: string }>();
  return (remote, forwardedFor) => {
    // Without trusted proxies X-Forwarded-For is never believed, so it is no part of the source.
    const source = forwardedFor === undefined || trusted.length === 0 ? remote : `${remote} ${forwardedFor}`;
    let found = known.get(source);
    if (!found) {
      const ip = clientIp(remote, forwardedFor, trusted);
      found = { ip, key: `ip:${ipRateKey(ip)}` };
      if (known.size >= MAX_REMEMBERED_SOURCES) known.clear();
      known.set(source, found);
    }
    return found;
  };
}

/** The answer to an /api request once the per-IP limit let it through (its errors already in the Error shape). */
export type Admitted = () => Response | Promise<Response>;

/**
 * The per-IP cap over the whole API, checked before authentication so that floods of bad keys
 * are capped too: every /api route's handler runs its answer through it (routes/api.ts). Also
 * writes the RateLimit-* headers of every /api response, from whichever limit the request came
 * closest to, and `Cache-Control: no-store` on every response it let through (a layer of its
 * own cost a copy of every Response: Hono's c.header() after the handler makes a new one).
 */
export function limitPerIp(limiter: SlidingWindowLimiter, trusted: TrustedProxies): (c: Context<GatewayEnv>, admitted: Admitted) => Promise<Response> {
  const addresses = clientAddresses(trusted);
  return async (c, admitted) => {
    c.set("rateDecisions", []);
    const remote = c.env.server.requestIP(c.req.raw)?.address ?? "unknown";
    const { ip, key } = addresses(remote, c.req.header("x-forwarded-for"));
    c.get("log").add({ ip });
    c.set("clientIp", ip);
    const refused = count(c, limiter, key);
    let res: Response;
    if (refused) res = refused;
    else {
      res = await admitted();
      res.headers.set("Cache-Control", "no-store");
    }
    const d = tightest(c.get("rateDecisions"))!;
    res.headers.set("RateLimit-Limit", String(d.limit));
    res.headers.set("RateLimit-Remaining", String(d.remaining));
    res.headers.set("RateLimit-Reset", String(d.resetSeconds));
    return res;
  };
}

/**
 * A per-key limit of one API method, `method` and `path` as the operation is registered (route
 * template + HTTP method); needs requireApiKey first. A HEAD is served by the GET's route (the
 * same call to the owning service, only the body is dropped), so it counts as that GET: a quota of
 * its own would double every read's limit, the balance's 60 included.
 */
export function limitPerKey(limiter: SlidingWindowLimiter, method: string, path: string): Check {
  const operation = ` ${method} ${path}`;
  return (c) => count(c, limiter, c.get("keyHash") + operation);
}
