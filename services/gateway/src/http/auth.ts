import { DomainError } from "@payaccept/contracts";
import type { AuditActor } from "@payaccept/contracts";
import { jsonError, sha256Hex } from "@payaccept/platform";
import type { ActiveKey } from "@payaccept/platform";
import type { Context } from "hono";
import type { Check, GatewayEnv } from "./env.ts";
import type { KeyDirectory } from "./key-directory.ts";

/** Real keys are ~51 characters; anything far longer is not worth hashing. */
const MAX_KEY_LENGTH = 256;

/**
 * X-Api-Key → active shop, through the directory kept in memory (keyDirectory). The key is looked
 * up by its SHA-256, so no comparison ever runs on the key itself. Missing, unknown, revoked,
 * expired (a rolled key past its overlap) and inactive-shop keys all get the same 401.
 */
export function requireApiKey(directory: KeyDirectory): Check {
  const admit = (c: Context<GatewayEnv>, keyHash: string, found: ActiveKey | undefined) => {
    if (!found) return jsonError(c, new DomainError("API_KEY_INVALID"));
    const { shop } = found;
    c.set("shop", shop);
    c.set("apiKey", found.key);
    c.set("keyHash", keyHash);
    c.get("log").add({ shopId: shop.shopId });
    return undefined;
  };
  return (c) => {
    const key = c.req.header("x-api-key");
    const keyHash = key && key.length <= MAX_KEY_LENGTH ? sha256Hex(key) : undefined;
    if (!keyHash) return jsonError(c, new DomainError("API_KEY_INVALID"));
    const found = directory.activeKey(keyHash);
    return found instanceof Promise ? found.then((f) => admit(c, keyHash, f)) : admit(c, keyHash, found);
  };
}

/** The key a request came with, as the audit log names it: its prefix, and where the request came from. */
export function apiKeyActor(c: Context<GatewayEnv>): AuditActor {
  const key = c.get("apiKey");
  const userAgent = c.req.header("user-agent")?.slice(0, 512);
  return { kind: "apiKey", id: key.keyId, label: key.displayPrefix ?? key.keyId, ip: c.get("clientIp"), ...(userAgent ? { userAgent } : {}) };
}
