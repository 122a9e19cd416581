import type { PaymentStatus, StatusTotal } from "@payaccept/contracts";

/** Paid payments: a REFUNDED one was paid first, so it counts as paid; its refunds are counted apart. */
export const PAID: readonly PaymentStatus[] = ["SUCCESS", "REFUNDED"];

/**
 * Held by the buyer's bank for a capture (AUTHORIZED): the buyer has paid, yet the money is not
 * the shop's until captured, so it is counted apart from what was paid, never in the turnover.
 */
export const HELD: readonly PaymentStatus[] = ["AUTHORIZED"];

/** How many of a set are in `statuses` (by default paid), and for how much (before refunds), from its totals per status. */
export function paidOf(byStatus: StatusTotal[], statuses: readonly PaymentStatus[] = PAID): { count: number; sumKopecks: number } {
  const paid = byStatus.filter((s) => statuses.includes(s.status));
  return { count: paid.reduce((n, s) => n + s.count, 0), sumKopecks: paid.reduce((n, s) => n + s.sumKopecks, 0) };
}
