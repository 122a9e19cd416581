import type { KV } from "@nats-io/kv";
import { ShopRecord, shopKvKey } from "@payaccept/contracts";

/**
 * The shop as the directory holds it right now, read from the bucket rather than the watched
 * cache: a merchant who saves a webhook URL and at once presses "Send test webhook" must be
 * answered about the URL just saved.
 */
export async function readShop(kv: KV, shopId: string): Promise<ShopRecord | undefined> {
  const entry = await kv.get(shopKvKey(shopId));
  if (!entry || entry.operation !== "PUT") return undefined;
  const parsed = ShopRecord.safeParse(entry.json());
  return parsed.success ? parsed.data : undefined;
}
