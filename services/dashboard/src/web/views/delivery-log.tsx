import type { WebhookDelivery } from "@payaccept/contracts";
import type { Page } from "../page.ts";
import { ActionButton, Badge, failureSaid, StatusBadge, When } from "./components.tsx";

const RESULT_TONE: Record<string, "ok" | "bad" | "neutral"> = { delivered: "ok", exhausted: "bad", blocked: "bad" };

type Attempt = WebhookDelivery["attempts"][number];

/**
 * An attempt's reply: its code and time, "no reply" and the time waited, or, with no URL to send
 * to, "not sent" (a "no reply · 0 ms" read as if the merchant's server had been asked).
 */
function replyOf(page: Page, a: Attempt): string {
  const { t } = page;
  if (a.errorCode === "WEBHOOK_URL_MISSING") return t.notSent;
  return `${a.httpStatus === null ? t.noHttpReply : `HTTP ${a.httpStatus}`} · ${t.ms(Math.round(a.durationMs))}`;
}

function LastReply(props: { page: Page; d: WebhookDelivery }) {
  const last = props.d.attempts.at(-1);
  if (!last) return <span class="muted">{props.page.t.none}</span>;
  return <span class="reply">{replyOf(props.page, last)}</span>;
}

/**
 * Webhook deliveries, newest first, one table row each: when, which order and event, the result
 * (with the next attempt or the error under it), the attempts (folded list), the last reply, and
 * a resend that works even after the attempts ran out. `back` says where the resend returns to.
 */
export function DeliveryLog(props: { page: Page; shopId: string; deliveries: WebhookDelivery[]; back: "webhook" | "payment" }) {
  const { page } = props;
  const { t } = page;
  if (props.deliveries.length === 0) return <p class="muted">{t.noDeliveries}</p>;
  const withOrder = props.back === "webhook";
  return (
    <table class="deliveries">
      <thead>
        <tr>
          <th scope="col">{t.deliveryCreated}</th>
          {withOrder ? <th scope="col">{t.order}</th> : null}
          <th scope="col">{t.deliveryEvent}</th>
          <th scope="col">{t.result}</th>
          <th scope="col">{t.attempts}</th>
          <th scope="col">{t.lastReply}</th>
          <th scope="col">
            <span class="visually-hidden">{t.resend}</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {props.deliveries.map((d) => (
          <tr class="delivery" data-delivery={d.id}>
            <td data-label={t.deliveryCreated}>
              <When page={page} at={d.createdAt} />
            </td>
            {withOrder ? (
              <td data-label={t.order}>
                <a href={`/shops/${props.shopId}/payments/${d.paymentId}`}>{d.orderId}</a>
              </td>
            ) : null}
            <td data-label={t.deliveryEvent}>
              <StatusBadge page={page} status={d.status} />
            </td>
            <td data-label={t.result}>
              <Badge tone={RESULT_TONE[d.result] ?? "neutral"}>{t.deliveryResults[d.result] ?? d.result}</Badge>
              {d.nextAttemptAt ? (
                <span class="small muted block">
                  {t.nextAttempt}: <When page={page} at={d.nextAttemptAt} />
                </span>
              ) : null}
              {d.lastErrorCode ? <span class="small error-text block">{t.lastErrorIs(failureSaid(page, d.lastErrorCode, d.lastErrorParams))}</span> : null}
            </td>
            <td data-label={t.attempts} class="attempt-count">
              {d.attempts.length > 0 ? (
                <details>
                  <summary>{d.attemptCount}</summary>
                  <ol class="attempts">
                    {d.attempts.map((a) => (
                      <li>
                        {t.attemptNo(a.series, a.attempt)} · <When page={page} at={a.at} /> · {replyOf(page, a)}
                        {a.errorCode ? <span class="error-text"> · {failureSaid(page, a.errorCode, a.errorParams)}</span> : null}
                      </li>
                    ))}
                  </ol>
                </details>
              ) : (
                d.attemptCount
              )}
            </td>
            <td data-label={t.lastReply}>
              <LastReply page={page} d={d} />
            </td>
            <td class="row-action">
              <ActionButton page={page} action={`/shops/${props.shopId}/webhook/deliveries/${d.id}/resend`} label={t.resend} fields={{ back: props.back }} small />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
