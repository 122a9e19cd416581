import type { AttemptRow, DeliveryRow } from "./schema.ts";

export type DeliveryPage = { delivery: DeliveryRow; attempts: AttemptRow[] }[];

/** The delivery rows of a page joined with their attempts (fetched in one query, series and attempt order). */
export function withAttempts(rows: DeliveryRow[], attempts: AttemptRow[]): DeliveryPage {
  const byDelivery = Map.groupBy(attempts, (a) => a.deliveryId);
  return rows.map((delivery) => ({ delivery, attempts: byDelivery.get(delivery.id) ?? [] }));
}
