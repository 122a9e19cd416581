import type { ShopDetail } from "@payaccept/contracts";

/** Which shops an overview adds up, and whether its figures are sandbox ones. */
export type OverviewScope = { shopIds: string[]; sandbox: boolean; liveOnly: boolean };

/**
 * One chosen shop, or "all": the live shops when the account has any. Sandbox payments move no
 * money, so adding them to live turnover overstates it (one 1 000 000 ₽ test payment made the
 * account's turnover a million); an account with sandbox shops only sees those together, marked
 * as test figures. `liveOnly` says "all" left sandbox shops out, so the choice is named so.
 */
export function overviewScope(shops: ShopDetail[], shopId: string | undefined): OverviewScope {
  const live = shops.filter((s) => !s.sandbox);
  const liveOnly = live.length > 0 && live.length < shops.length;
  if (shopId) return { shopIds: [shopId], sandbox: shops.find((s) => s.id === shopId)?.sandbox ?? false, liveOnly };
  const counted = live.length > 0 ? live : shops;
  return { shopIds: counted.map((s) => s.id), sandbox: live.length === 0, liveOnly };
}
