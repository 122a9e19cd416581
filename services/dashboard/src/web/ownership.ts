import { DomainError, isReason, rpcs, Uuid, type ShopWithKey } from "@payaccept/contracts";
import type { Backend } from "./backend.ts";

/**
 * The shop, if it belongs to the account. Another account's shop is exactly as absent as one
 * that never existed (404, same page), so ids cannot be probed. Everything under a shop —
 * keys, secret, payments (asked for with this shop id), deliveries — hangs off this check.
 */
export async function ownedShop(backend: Backend, accountId: string, shopId: string, withSecret = false): Promise<ShopWithKey> {
  const found = await backend.call(rpcs.directory.getShop, { shopId, withSecret }).catch((e: unknown) => {
    if (isReason(e, "SHOP_NOT_FOUND")) return undefined;
    throw e;
  });
  if (!found || found.shop.accountId !== accountId) throw new DomainError("SHOP_NOT_FOUND");
  return found;
}

/** A payment id from the path; anything but a UUID is a page that does not exist. */
export function paymentIdParam(id: string): string {
  if (!Uuid.safeParse(id).success) throw new DomainError("PAYMENT_NOT_FOUND");
  return id.toLowerCase();
}
