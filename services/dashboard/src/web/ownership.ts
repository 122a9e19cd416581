import { DomainError, Uuid } from "@payaccept/contracts";
import type { DirectoryStore } from "../store/directory-store.ts";
import type { ShopRow } from "../store/schema.ts";

/**
 * The shop, if it belongs to the account. Another account's shop is exactly as absent as one
 * that never existed (404, same page), so ids cannot be probed. Everything under a shop —
 * keys, secret, payments (asked for with this shop id), deliveries — hangs off this check.
 */
export function ownedShop(store: DirectoryStore, accountId: string, shopId: string): ShopRow {
  const shop = store.shop(shopId);
  if (!shop || shop.accountId !== accountId) throw new DomainError("SHOP_NOT_FOUND");
  return shop;
}

/** A payment id from the path; anything but a UUID is a page that does not exist. */
export function paymentIdParam(id: string): string {
  if (!Uuid.safeParse(id).success) throw new DomainError("PAYMENT_NOT_FOUND");
  return id.toLowerCase();
}
