import type { WebhookDelivery } from "@payaccept/contracts";
import type { Page } from "../page.ts";
import { ActionButton, Badge, StatusBadge, When } from "./components.tsx";

const RESULT_TONE: Record<string, "ok" | "bad" | "neutral"> = { delivered: "ok", exhausted: "bad", blocked: "bad" };

/**
 * Webhook deliveries, newest first: result, attempt count, error and next attempt, every
 * attempt's code and time (folded), and a resend that works even after the attempts ran out.
 * `back` says where the resend returns to.
 */
export function DeliveryLog(props: { page: Page; shopId: string; deliveries: WebhookDelivery[]; back: "webhook" | "payment" }) {
  const { page } = props;
  const { t } = page;
  if (props.deliveries.length === 0) return <p class="muted">{t.noDeliveries}</p>;
  return (
    <ul class="deliveries">
      {props.deliveries.map((d) => (
        <li class="delivery" data-delivery={d.id}>
          <div class="delivery-head">
            <StatusBadge page={page} status={d.status} />
            <Badge tone={RESULT_TONE[d.result] ?? "neutral"}>{t.deliveryResults[d.result] ?? d.result}</Badge>
            {props.back === "webhook" ? (
              <a href={`/shops/${props.shopId}/payments/${d.paymentId}`}>
                {t.order} {d.orderId}
              </a>
            ) : null}
          </div>
          <dl class="facts compact">
            <dt>{t.deliveryCreated}</dt>
            <dd>
              <When page={page} at={d.createdAt} />
            </dd>
            <dt>{t.attempts}</dt>
            <dd class="attempt-count">{d.attemptCount}</dd>
            {d.nextAttemptAt ? (
              <>
                <dt>{t.nextAttempt}</dt>
                <dd>
                  <When page={page} at={d.nextAttemptAt} />
                </dd>
              </>
            ) : null}
            {d.lastError ? (
              <>
                <dt>{t.lastError}</dt>
                <dd class="error-text">{d.lastError}</dd>
              </>
            ) : null}
          </dl>
          {d.attempts.length > 0 ? (
            <details>
              <summary>{t.attemptLog}</summary>
              <ol class="attempts">
                {d.attempts.map((a) => (
                  <li>
                    {t.attemptNo(a.series, a.attempt)} · <When page={page} at={a.at} /> · {a.httpStatus === null ? t.noHttpReply : `HTTP ${a.httpStatus}`} ·{" "}
                    {Math.round(a.durationMs)} ms{a.error ? <span class="error-text"> · {a.error}</span> : null}
                  </li>
                ))}
              </ol>
            </details>
          ) : null}
          <ActionButton page={page} action={`/shops/${props.shopId}/webhook/deliveries/${d.id}/resend`} label={t.resend} fields={{ back: props.back }} />
        </li>
      ))}
    </ul>
  );
}
