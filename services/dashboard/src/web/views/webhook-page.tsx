import type { ShopDetail, WebhookDelivery } from "@payaccept/contracts";
import type { Loaded } from "../backend.ts";
import type { FlashMessage } from "../flash.ts";
import { allows, type Page } from "../page.ts";
import { PAYMENT_EVENT_STATUSES } from "@payaccept/contracts";
import { logFilterQuery, type LogFilter } from "../delivery-filter.ts";
import { ActionButton, Alert, CsrfField, EditableFields, eventName, failureSaid, Secret, SelectField, TextField, Unavailable, When } from "./components.tsx";
import { DeliveryLog } from "./delivery-log.tsx";
import { ShopFrame } from "./shop-frame.tsx";
import { SECRET_OVERLAPS } from "../overlap.ts";

export const DELIVERIES_PER_PAGE = 20;

type Props = {
  page: Page;
  shop: ShopDetail;
  log: Loaded<WebhookDelivery[]>;
  filter: LogFilter;
  /** The delivery the page starts after (older pages), if any. */
  before?: string;
  urlForm?: { value: string; errors: string[] };
  flash?: Extract<FlashMessage, { kind: "secret" | "testWebhook" | "notice" }>;
};

function TestResult(props: { page: Page; flash: Extract<FlashMessage, { kind: "testWebhook" }> }) {
  const { page } = props;
  const { t } = page;
  const { result } = props.flash;
  const ms = Math.round(result.durationMs);
  if (result.httpStatus !== null) {
    const ok = result.httpStatus >= 200 && result.httpStatus < 300;
    return (
      <Alert kind={ok ? "ok" : "error"}>
        <p class="test-result">{t.testWebhookResult(result.httpStatus, ms)}</p>
        <p class="small">
          {t.sentAt} <When page={page} at={props.flash.sentAt} />
        </p>
        {result.errorCode ? <p class="error-text">{failureSaid(page, result.errorCode, result.errorParams)}</p> : null}
      </Alert>
    );
  }
  return (
    <Alert kind="error">
      <p class="test-result">{result.errorCode === "WEBHOOK_URL_MISSING" ? t.noWebhookUrl : t.testWebhookNoReply(ms)}</p>
      {result.errorCode && result.errorCode !== "WEBHOOK_URL_MISSING" ? <p class="error-text">{failureSaid(page, result.errorCode, result.errorParams)}</p> : null}
    </Alert>
  );
}

function LogFilters(props: { page: Page; base: string; filter: LogFilter }) {
  const { page, filter } = props;
  const { t } = page;
  return (
    <form method="get" action={`${props.base}#log-title`} class="filters log-filters">
      <SelectField name="status" label={t.deliveryEvent} value={filter.status} options={[["", t.anyEvent], ...PAYMENT_EVENT_STATUSES.map((s): [string, string] => [s, eventName(t, s)])]} />
      <TextField name="payment" label={t.paymentFilter} value={filter.payment} hint={t.paymentFilterHint} maxlength={64} />
      <label class="choice">
        <input type="checkbox" name="failed" value="1" checked={filter.failedOnly} /> {t.failedOnly}
      </label>
      <div class="actions">
        <button type="submit" class="button primary">
          {t.applyFilters}
        </button>
        <a class="button plain" href={`${props.base}#log-title`}>
          {t.resetFilters}
        </a>
      </div>
    </form>
  );
}

/** The Webhook tab: URL, signing secret (on demand), test webhook, and the delivery log. */
export function WebhookPage(props: Props) {
  const { page, shop, flash } = props;
  const { t } = page;
  const base = `/shops/${shop.id}/webhook`;
  const urlForm = props.urlForm ?? { value: shop.webhookUrl ?? "", errors: [] };
  const items = props.log.ok ? props.log.value : [];
  const older = items.length === DELIVERIES_PER_PAGE ? items.at(-1)?.id : undefined;
  return (
    <ShopFrame page={page} shop={shop} tab="webhook" title={t.webhookTitle}>
      {flash?.kind === "notice" && flash.text !== "resent" ? <Alert kind="ok">{t[flash.text]}</Alert> : null}
      <section class="card" aria-labelledby="url-title">
        <h2 id="url-title">{t.webhookEndpoint}</h2>
        {urlForm.errors.length ? <Alert kind="error" title={t.fixErrors} items={urlForm.errors} /> : null}
        <form method="post" action={`${base}/url`} class="stack">
          <CsrfField page={page} />
          <EditableFields page={page} action="webhook.manage">
            <TextField
              name="webhookUrl"
              type="url"
              label={t.webhookUrl}
              value={urlForm.value}
              hint={shop.sandbox ? t.webhookUrlHintSandbox : t.webhookUrlHintLive}
              placeholder={t.webhookUrlEmpty}
              maxlength={2048}
              inputmode="url"
            />
          </EditableFields>
        </form>
      </section>
      <section class="card" aria-labelledby="secret-title">
        <h2 id="secret-title">{t.secretTitle}</h2>
        {flash?.kind === "secret" ? (
          <Alert kind={flash.rotated ? "warn" : "ok"} title={flash.rotated ? t.secretRotated : t.secretShown}>
            <Secret page={page} value={flash.secret} label={t.secretTitle} />
          </Alert>
        ) : (
          <p class="muted">{t.secretHidden}</p>
        )}
        {shop.retiringSecretExpiresAt !== undefined ? (
          <div class="retiring" id="retiring-secret">
            <p>
              {t.retiringSecretUntil} <When page={page} at={shop.retiringSecretExpiresAt} />
            </p>
            <p class="hint">{t.retiringSecretNote}</p>
            {allows(page, "secret.end_overlap") ? (
              <ActionButton page={page} action={`${base}/secret/end-overlap`} label={t.endOverlapNow} confirm={t.endSecretOverlapConfirm} tone="danger" small />
            ) : null}
          </div>
        ) : null}
        <div class="actions">
          {allows(page, "secret.reveal") ? <ActionButton page={page} action={`${base}/secret`} label={t.showSecret} /> : null}
          {allows(page, "secret.rotate") ? (
            <ActionButton page={page} action={`${base}/secret/rotate`} label={t.rotateSecret} confirm={t.rotateSecretConfirm} tone="danger">
              <SelectField name="overlap" label={t.secretOverlapLabel} value="0" options={SECRET_OVERLAPS.map((o) => [o, t.overlapChoices[o]])} />
            </ActionButton>
          ) : null}
        </div>
      </section>
      <section class="card" aria-labelledby="test-title">
        <h2 id="test-title">{t.testWebhookTitle}</h2>
        <p class="muted">{t.testWebhookText}</p>
        {flash?.kind === "testWebhook" ? <TestResult page={page} flash={flash} /> : null}
        {allows(page, "webhook.manage") ? <ActionButton page={page} action={`${base}/test`} label={t.sendTestWebhook} /> : null}
      </section>
      <section class="card" aria-labelledby="log-title">
        <h2 id="log-title">{t.deliveriesTitle}</h2>
        {/* A resend returns here (#log-title), to the log as it was filtered: its notice is shown where the merchant looks. */}
        {flash?.kind === "notice" && flash.text === "resent" ? <Alert kind="ok">{t.resent}</Alert> : null}
        <LogFilters page={page} base={base} filter={props.filter} />
        {props.log.ok ? <DeliveryLog page={page} shopId={shop.id} deliveries={items} back={{ to: "webhook", filter: props.filter, before: props.before }} /> : <Unavailable page={page} service={props.log.service} />}
        <p class="pager">
          {props.before ? <a href={`${base}${logFilterQuery(props.filter)}#log-title`}>{t.newestDeliveries}</a> : null}
          {older ? <a href={`${base}${logFilterQuery(props.filter, { before: older })}#log-title`}>{t.olderDeliveries}</a> : null}
        </p>
      </section>
    </ShopFrame>
  );
}
