import { and, eq, lt, type Column } from "drizzle-orm";
import type { DeliveryHealth, Failure } from "@payaccept/contracts";
import { failureFields } from "../delivery-view.ts";
import type { DeliveryPage, LogQuery } from "./delivery-store.ts";
import { FAILING, type AttemptRow, type DeliveryRow, type HealthState } from "./schema.ts";

// The read side of the delivery log that both engines share: its filters, pages and health figures.

/** The delivery rows of a page joined with their attempts (fetched in one query, series and attempt order). */
export function withAttempts(rows: DeliveryRow[], attempts: AttemptRow[]): DeliveryPage {
  const byDelivery = Map.groupBy(attempts, (a) => a.deliveryId);
  return rows.map((delivery) => ({ delivery, attempts: byDelivery.get(delivery.id) ?? [] }));
}

export type HealthCell = { shopId: string; state: HealthState; count: number };

/**
 * The overview's figures of each shop from its rollup cells (summed over the days asked for);
 * `latestError` is only asked for shops with failing or retrying deliveries.
 */
export async function healthFigures(cells: HealthCell[], latestError: (shopId: string) => Promise<Failure | null>): Promise<DeliveryHealth[]> {
  const shops = [...Map.groupBy(cells, (c) => c.shopId)].map(([shopId, states]) => {
    const n = (state: HealthState) => states.find((s) => s.state === state)?.count ?? 0;
    return {
      shopId,
      total: n("delivered") + n("failed") + n("retrying") + n("pending"),
      firstSent: n("first_sent"),
      firstAttempt: n("first_delivered"),
      delivered: n("delivered"),
      unsent: n("unsent"),
      failed: n("failed"),
      retrying: n("retrying"),
    };
  });
  return Promise.all(
    shops
      .filter((figures) => figures.total + figures.unsent > 0)
      .map(async (figures) => ({ ...figures, ...failureFields(figures.failed + figures.retrying === 0 ? null : await latestError(figures.shopId), "lastError") })),
  );
}

type LogColumns = Record<"shopId" | "paymentId" | "id" | "status" | "orderId", Column>;

/** The delivery log's conditions, the same on both engines (each filter has its index, schema.ts). */
export function logFilter(q: LogQuery, t: LogColumns) {
  return and(
    eq(t.shopId, q.shopId),
    q.paymentId === undefined ? undefined : eq(t.paymentId, q.paymentId),
    q.before === undefined ? undefined : lt(t.id, q.before),
    q.status === undefined ? undefined : eq(t.status, q.status),
    q.orderId === undefined ? undefined : eq(t.orderId, q.orderId),
    q.failedOnly ? FAILING : undefined,
  );
}
