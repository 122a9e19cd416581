import type { ApiKeyRecord, ShopRecord } from "@payaccept/contracts";
import type { AppEnv } from "@payaccept/platform";
import type { Server } from "bun";
import type { Context } from "hono";
import type { RateDecision } from "./rate-limiter.ts";

/** What the /api middleware chain leaves for the handlers. */
export type GatewayEnv = {
  Bindings: { server: Server<undefined> };
  Variables: AppEnv["Variables"] & {
    shop: ShopRecord;
    /** The key's record: who the request acts for, in the audit log. */
    apiKey: ApiKeyRecord;
    keyHash: string;
    /** The client's address (behind TRUSTED_PROXIES). */
    clientIp: string;
    /** The request's JSON body as sent (before its schema's transforms), on routes that take one. */
    body?: unknown;
    /** Every limit this request was counted against; the tightest one goes into the headers. */
    rateDecisions: RateDecision[];
    /**
     * Set when the request holds an Idempotency-Key: its request's `fingerprint`; `retry` when an
     * earlier attempt with it may have acted; `inService` when the owning service keeps the key
     * with its own write (the handler passes key and fingerprint down) instead of the bucket.
     */
    idempotency?: { key: string; fingerprint: string; retry: boolean; inService: boolean };
  };
};

/**
 * One check of an operation's chain, a plain function (routes/operations.ts runs them in order):
 * its refusal, or undefined to go on. Synchronous where it can be: an await costs a turn of the
 * microtask queue, and most checks never wait.
 */
export type Check = (c: Context<GatewayEnv>) => Response | undefined | Promise<Response | undefined>;
