import { WEBHOOK_UNSENT_REASON, type WebhookDelivery } from "@payaccept/contracts";
import { logFilterParams, type LogFilter } from "../delivery-filter.ts";
import { allows, type Page } from "../page.ts";
import { ActionButton, Badge, failureSaid, StatusBadge, When } from "./components.tsx";

const RESULT_TONE: Record<string, "ok" | "bad" | "neutral"> = { delivered: "ok", exhausted: "bad", blocked: "bad" };

type Attempt = WebhookDelivery["attempts"][number];

/**
 * An attempt's reply: its code and time, "no reply" and the time waited, or, with no URL to send
 * to, "not sent" (a "no reply · 0 ms" read as if the merchant's server had been asked).
 */
function replyOf(page: Page, a: Attempt): string {
  const { t } = page;
  if (a.errorCode === WEBHOOK_UNSENT_REASON) return t.notSent;
  return `${a.httpStatus === null ? t.noHttpReply : `HTTP ${a.httpStatus}`} · ${t.ms(Math.round(a.durationMs))}`;
}

function LastReply(props: { page: Page; d: WebhookDelivery }) {
  const last = props.d.attempts.at(-1);
  if (!last) return <span class="muted">{props.page.t.none}</span>;
  return <span class="reply">{replyOf(props.page, last)}</span>;
}

/**
 * Where the delivery stands, with the next attempt or the error under it. One whose last attempt
 * found no URL reads "not sent" in a neutral tone: nothing failed, the shop has no endpoint (and
 * the next attempt, if any, goes out should a URL be set by then).
 */
function DeliveryResult(props: { page: Page; d: WebhookDelivery }) {
  const { page, d } = props;
  const { t } = page;
  const unsent = d.lastErrorCode === WEBHOOK_UNSENT_REASON;
  return (
    <>
      {unsent ? <Badge tone="neutral">{t.unsent}</Badge> : <Badge tone={RESULT_TONE[d.result] ?? "neutral"}>{t.deliveryResults[d.result] ?? d.result}</Badge>}
      {d.nextAttemptAt ? (
        <span class="small muted block">
          {t.nextAttempt}: <When page={page} at={d.nextAttemptAt} />
        </span>
      ) : null}
      {d.lastErrorCode ? (
        <span class={`small block ${unsent ? "muted" : "error-text"}`}>
          {unsent ? failureSaid(page, d.lastErrorCode, d.lastErrorParams) : t.lastErrorIs(failureSaid(page, d.lastErrorCode, d.lastErrorParams))}
        </span>
      ) : null}
    </>
  );
}

/**
 * Where a resend returns to: the payment's page, or the Webhook tab's log as the merchant was
 * looking at it (its filter and page), so a resend in a filtered log does not throw the filter away.
 */
export type ResendReturn = { to: "payment" } | { to: "webhook"; filter: LogFilter; before?: string };

/** The resend form's hidden fields that say where it returns to (read back by the webhook routes). */
const returnFields = (back: ResendReturn): Record<string, string> =>
  back.to === "payment" ? { back: "payment" } : { back: "webhook", ...Object.fromEntries(logFilterParams(back.filter, { before: back.before ?? "" })) };

/**
 * Webhook deliveries, newest first, one table row each: when, which order and event, the result
 * (with the next attempt or the error under it), the attempts (folded list), the last reply, and
 * a resend that works even after the attempts ran out.
 */
export function DeliveryLog(props: { page: Page; shopId: string; deliveries: WebhookDelivery[]; back: ResendReturn }) {
  const { page } = props;
  const { t } = page;
  if (props.deliveries.length === 0) return <p class="muted">{t.noDeliveries}</p>;
  const withOrder = props.back.to === "webhook";
  const fields = returnFields(props.back);
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
              <DeliveryResult page={page} d={d} />
            </td>
            <td data-label={t.attempts} class="attempt-count">
              {d.attempts.length > 0 ? (
                <details>
                  <summary>{d.attemptCount}</summary>
                  <ol class="attempts">
                    {d.attempts.map((a) => (
                      <li>
                        {t.attemptNo(a.series, a.attempt)} · <When page={page} at={a.at} /> · {replyOf(page, a)}
                        {a.errorCode && a.errorCode !== WEBHOOK_UNSENT_REASON ? <span class="error-text"> · {failureSaid(page, a.errorCode, a.errorParams)}</span> : null}
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
              {allows(page, "webhook.manage") ? <ActionButton page={page} action={`/shops/${props.shopId}/webhook/deliveries/${d.id}/resend`} label={t.resend} fields={fields} small /> : null}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
