import type { KV } from "@nats-io/kv";
import { ShopRecord, shopKvKey } from "@payaccept/contracts";
import type { DirectoryCache } from "@payaccept/platform";

export type ShopDirectory = { shop(shopId: string): Promise<ShopRecord | undefined> };

/**
 * Shops from the watched in-memory directory. A miss is read from the bucket itself before it
 * counts: a shop created a moment ago can reach a request before it reaches the watch.
 */
export function shopDirectory(cache: DirectoryCache, kv: KV): ShopDirectory {
  return {
    async shop(shopId) {
      const cached = cache.shop(shopId);
      if (cached) return cached;
      const entry = await kv.get(shopKvKey(shopId));
      if (!entry || entry.operation !== "PUT") return undefined;
      const parsed = ShopRecord.safeParse(entry.json());
      return parsed.success ? parsed.data : undefined;
    },
  };
}
