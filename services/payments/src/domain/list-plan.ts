import type { ListPaymentsQuery, PaymentStatus } from "@payaccept/contracts";

/**
 * What the store knows about a shop's seq numbers (1…lastSeq, no gaps, createdAt non-decreasing):
 * `fromSeq` is the first seq created at or after `from`, `toSeq` the last created at or before
 * `to`; null when no payment is on that side, undefined when the bound was not asked for.
 */
export type SeqBounds = { lastSeq: number; fromSeq?: number | null; toSeq?: number | null };

export type ListPlan =
  /** Nothing to read; the total is already known. */
  | { kind: "empty"; total: number }
  /** No status filter: the page is the seq range [first, last] and total a subtraction (index seek). */
  | { kind: "seqRange"; first: number; last: number; total: number }
  /**
   * Status filter: walk (shop, status, seq) within [first, last] skipping `offset` entries. The total
   * comes from the per-status counters when the window is the whole shop, else from a count.
   */
  | {
      kind: "statusWalk";
      statuses: PaymentStatus[];
      first: number;
      last: number;
      offset: number;
      limit: number;
      total: "counters" | "count";
    };

export function planList(query: ListPaymentsQuery, bounds: SeqBounds): ListPlan {
  const first = bounds.fromSeq === undefined ? 1 : bounds.fromSeq;
  const last = bounds.toSeq === undefined ? bounds.lastSeq : bounds.toSeq;
  if (first === null || last === null || first > last) return { kind: "empty", total: 0 };
  const offset = (query.page - 1) * query.limit;
  if (query.status) {
    const wholeShop = bounds.fromSeq === undefined && bounds.toSeq === undefined;
    return { kind: "statusWalk", statuses: query.status, first, last, offset, limit: query.limit, total: wholeShop ? "counters" : "count" };
  }
  const total = last - first + 1;
  if (offset >= total) return { kind: "empty", total };
  return { kind: "seqRange", first: first + offset, last: Math.min(last, first + offset + query.limit - 1), total };
}
