import { failureText, type Failure, type WebhookDelivery } from "@payaccept/contracts";
import { failureFrom } from "./store/failure-columns.ts";
import type { AttemptRow, DeliveryRow } from "./store/schema.ts";

const iso = (ms: number) => new Date(ms).toISOString();

/** A failure in the API's three fields: English text, reason code, parameters. */
export function failureFields<K extends string>(f: Failure | null, key: K) {
  return { [key]: f && failureText(f), [`${key}Code`]: f?.reason ?? null, [`${key}Params`]: f?.params ?? null } as Record<K, string | null> &
    Record<`${K}Code`, Failure["reason"] | null> &
    Record<`${K}Params`, Failure["params"] | null>;
}

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
    ...failureFields(failureFrom(d.lastErrorCode, d.lastErrorParams), "lastError"),
    nextAttemptAt: d.result === "pending" && d.nextAttemptAt !== null ? iso(d.nextAttemptAt) : null,
    createdAt: iso(d.createdAt),
    attempts: attempts.map((a) => ({
      series: a.series,
      attempt: a.attempt,
      at: iso(a.startedAt),
      httpStatus: a.httpStatus,
      ...failureFields(failureFrom(a.errorCode, a.errorParams), "error"),
      durationMs: a.durationMs,
    })),
  };
}
