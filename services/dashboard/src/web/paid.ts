import type { PaymentStatus, StatusTotal } from "@payaccept/contracts";

/** Paid payments: a REFUNDED one was paid first, so it counts as paid; its refunds are counted apart. */
export const PAID: readonly PaymentStatus[] = ["SUCCESS", "REFUNDED"];

/** How many of a set were paid, and for how much (before refunds), from its totals per status. */
export function paidOf(byStatus: StatusTotal[]): { count: number; sumKopecks: number } {
  const paid = byStatus.filter((s) => PAID.includes(s.status));
  return { count: paid.reduce((n, s) => n + s.count, 0), sumKopecks: paid.reduce((n, s) => n + s.sumKopecks, 0) };
}
