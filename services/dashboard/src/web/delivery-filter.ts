import { PAYMENT_EVENT_STATUSES, Uuid, type PaymentEventStatus } from "@payaccept/contracts";

/** The delivery log's filter as the form holds it: event status, failing only, a payment (order number or id). */
export type LogFilter = { status: PaymentEventStatus | ""; failedOnly: boolean; payment: string };

export function readLogFilter(query: (name: string) => string | undefined): LogFilter {
  return {
    status: PAYMENT_EVENT_STATUSES.find((s) => s === query("status")) ?? "",
    failedOnly: query("failed") === "1",
    payment: (query("payment") ?? "").trim().slice(0, 64),
  };
}

/** What the dispatcher filters on: a payment id when it is one, else an order number. */
export function logFilterRequest(f: LogFilter): { status?: PaymentEventStatus; failedOnly?: boolean; paymentId?: string; orderId?: string } {
  const byId = Uuid.safeParse(f.payment).success;
  return {
    status: f.status || undefined,
    failedOnly: f.failedOnly || undefined,
    paymentId: f.payment && byId ? f.payment.toLowerCase() : undefined,
    orderId: f.payment && !byId ? f.payment : undefined,
  };
}

/** The filter's non-empty parts (and `extra`, such as the page's `before`), as a query holds them. */
export function logFilterParams(f: LogFilter, extra: Record<string, string> = {}): URLSearchParams {
  const params = new URLSearchParams();
  if (f.status) params.set("status", f.status);
  if (f.failedOnly) params.set("failed", "1");
  if (f.payment) params.set("payment", f.payment);
  for (const [k, v] of Object.entries(extra)) if (v) params.set(k, v);
  return params;
}

/** The filter as a query string (for "older" links, and the page a resend returns to), without empty parts. */
export function logFilterQuery(f: LogFilter, extra: Record<string, string> = {}): string {
  const s = logFilterParams(f, extra).toString();
  return s ? `?${s}` : "";
}
