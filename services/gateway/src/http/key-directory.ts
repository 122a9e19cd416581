import { keyInForce, type ActiveKey, type DirectoryCache } from "@payaccept/platform";
import { boundedBy } from "./bounded.ts";

/** At once for a key the watched copy knows (every request but a new key's first), else a promise. */
export type KeyDirectory = { activeKey(keyHash: string): ActiveKey | undefined | Promise<ActiveKey | undefined> };

/**
 * Key hash → active shop from the watched in-memory directory. A hash the cache has never seen
 * is read from the bucket before it counts as unknown: a key issued a moment ago can reach a
 * request before it reaches the watch. A known key of an inactive shop is refused from memory,
 * so deactivation never waits on a read. The read is bounded; when it cannot be made the caller
 * gets 503, not a 401 that could be wrong.
 */
export function keyDirectory(cache: DirectoryCache, timeoutMs: number): KeyDirectory {
  const fromBucket = async (keyHash: string): Promise<ActiveKey | undefined> => {
    const key = await cache.readKey(keyHash);
    const shop = key && keyInForce(key) ? await cache.shopOrRead(key.shopId) : undefined;
    return shop?.active ? { shop, key: key! } : undefined;
  };
  return {
    activeKey(keyHash) {
      if (cache.keys.has(keyHash)) return cache.activeKey(keyHash);
      return boundedBy(fromBucket(keyHash), timeoutMs, "directory");
    },
  };
}
