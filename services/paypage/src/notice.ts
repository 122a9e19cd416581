import { PaymentMethod, type CheckoutView } from "@payaccept/contracts";
import type { Messages } from "./i18n.ts";
import { METHOD_CHANGED } from "./notice-codes.ts";

/**
 * A line above the screen when it is not the one the buyer just asked for: the script reloaded it
 * because the method was switched elsewhere (`notice=method-changed`), or a start with `tried` was
 * refused because the payment is already being paid with the other, unswitchable, method.
 */
export function noticeFor(view: CheckoutView, query: { notice?: string; tried?: string }, t: Messages): string | null {
  const { status, method } = view.payment;
  if (status !== "PENDING" || !method) return null;
  if (query.notice === METHOD_CHANGED) return t.noticeMethodChanged;
  const tried = PaymentMethod.safeParse(query.tried);
  if (tried.success && tried.data !== method) return t.noticeStartedWith(method === "SBP" ? t.methodNameSBP : t.methodNameCARD);
  return null;
}
