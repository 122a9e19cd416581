import { isAllowedReturnUrl } from "@payaccept/contracts";

/**
 * A merchant's return link as an href: a bare `t.me/...` becomes https, and anything outside the
 * allowed schemes (https, tg://) is dropped rather than rendered, whatever the store holds.
 */
export function returnHref(link: string | null): string | null {
  if (!link || !isAllowedReturnUrl(link)) return null;
  return /^t\.me\//i.test(link) ? `https://${link}` : link;
}
