import type { WebhookDelivery } from "@payaccept/contracts";
import type { AttemptRow, DeliveryRow } from "./store/schema.ts";

const iso = (ms: number) => new Date(ms).toISOString();

/** A delivery as the dashboard and the admin CLI show it (rpcs.webhooks.log / resend). */
export function toWebhookDelivery(d: DeliveryRow, attempts: AttemptRow[]): WebhookDelivery {
  return {
    id: d.id,
    shopId: d.shopId,
    paymentId: d.paymentId,
    orderId: d.orderId,
    status: d.status,
    result: d.result,
    attemptCount: attempts.length,
    lastError: d.lastError,
    nextAttemptAt: d.result === "pending" && d.nextAttemptAt !== null ? iso(d.nextAttemptAt) : null,
    createdAt: iso(d.createdAt),
    attempts: attempts.map((a) => ({
      series: a.series,
      attempt: a.attempt,
      at: iso(a.startedAt),
      httpStatus: a.httpStatus,
      error: a.error,
      durationMs: a.durationMs,
    })),
  };
}
