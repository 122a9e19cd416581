import { PAYMENT_SORTS, PAYMENT_STATUSES, type PaymentSort, type PaymentStatus } from "@payaccept/contracts";
import { moscowDayBounds } from "./moscow-time.ts";

export const PAYMENTS_PER_PAGE = 50;
const MAX_PAGE = 10_000;

/** Newest first: the payment made a moment ago is the one a merchant looks for. */
export const DEFAULT_SORT: PaymentSort = "created_desc";

/** The payments filter as the form holds it: Moscow dates, statuses, an order number, the order, a page. */
export type PaymentFilter = { from: string; to: string; statuses: PaymentStatus[]; orderId: string; sort: PaymentSort; page: number };

export type FilterProblem = "badFrom" | "badTo" | "fromAfterTo";

/** What the filter asks the payments service for (the API's own query, §4.2). */
export type PaymentQuery =
  | { kind: "lookup"; orderId: string }
  | { kind: "list"; period: { from?: string; to?: string; status?: PaymentStatus[] }; days: { fromDay?: string; toDay?: string }; page: number }
  | { kind: "invalid"; problems: FilterProblem[] };

export function readFilter(query: (name: string) => string | undefined, queries: (name: string) => string[]): PaymentFilter {
  const page = Number(query("page"));
  const sort = PAYMENT_SORTS.find((s) => s === query("sort")) ?? DEFAULT_SORT;
  return {
    from: query("from")?.trim() ?? "",
    to: query("to")?.trim() ?? "",
    statuses: PAYMENT_STATUSES.filter((s) => queries("status").includes(s)),
    orderId: (query("orderId") ?? "").trim().slice(0, 64),
    sort,
    page: Number.isInteger(page) && page >= 1 && page <= MAX_PAGE ? page : 1,
  };
}

/**
 * With an order number it is a lookup and the rest is ignored, as in the API. Otherwise the
 * period runs from the first millisecond of the `from` Moscow day to the last of the `to` day.
 */
export function planQuery(f: PaymentFilter): PaymentQuery {
  if (f.orderId) return { kind: "lookup", orderId: f.orderId };
  const from = f.from ? moscowDayBounds(f.from) : undefined;
  const to = f.to ? moscowDayBounds(f.to) : undefined;
  const problems: FilterProblem[] = [];
  if (f.from && !from) problems.push("badFrom");
  if (f.to && !to) problems.push("badTo");
  if (from && to && from.first > to.last) problems.push("fromAfterTo");
  if (problems.length > 0) return { kind: "invalid", problems };
  return {
    kind: "list",
    period: { from: from?.first, to: to?.last, status: f.statuses.length > 0 ? f.statuses : undefined },
    days: { fromDay: f.from || undefined, toDay: f.to || undefined },
    page: f.page,
  };
}

/** The filter as a query string (for page links and the CSV link), without empty parts. */
export function filterQuery(f: PaymentFilter, overrides: Partial<PaymentFilter> = {}): string {
  const merged = { ...f, ...overrides };
  const params = new URLSearchParams();
  if (merged.from) params.set("from", merged.from);
  if (merged.to) params.set("to", merged.to);
  for (const s of merged.statuses) params.append("status", s);
  if (merged.orderId) params.set("orderId", merged.orderId);
  if (merged.sort !== DEFAULT_SORT) params.set("sort", merged.sort);
  if (merged.page > 1) params.set("page", String(merged.page));
  const s = params.toString();
  return s ? `?${s}` : "";
}
