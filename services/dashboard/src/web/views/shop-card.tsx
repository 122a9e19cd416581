import { SAVE_METHOD_CONSENTS, type ShopDetail, type KeyHint, type RetiringKey } from "@payaccept/contracts";
import { KEY_OVERLAPS } from "../overlap.ts";
import { allows, type Page } from "../page.ts";
import { ActionButton, Alert, CsrfField, EditableFields, Secret, SelectField, TextField, When } from "./components.tsx";
import { ReceiptSettingsCard } from "./receipt-settings.tsx";
import { ShopFrame } from "./shop-frame.tsx";
import { tariffText } from "./tariff.tsx";

export type SettingsForm = { name: string; successUrl: string; failUrl: string; savedMethodConsent: string; errors: string[] };

/** The shop card: its API key (issued here, shown once), its settings, and what it is. */
export function ShopCardPage(props: {
  page: Page;
  shop: ShopDetail;
  keyHint: KeyHint | null;
  retiringKeys: RetiringKey[];
  newKey?: string;
  notice?: string;
  settings?: SettingsForm;
}) {
  const { page, shop } = props;
  const { t } = page;
  const settings = props.settings ?? {
    name: shop.name,
    successUrl: shop.successUrl ?? "",
    failUrl: shop.failUrl ?? "",
    savedMethodConsent: shop.savedMethodConsent ?? "BUYER_CHOICE",
    errors: [],
  };
  return (
    <ShopFrame page={page} shop={shop} tab="shop" title={t.tabShop}>
      {props.notice ? <Alert kind="ok">{props.notice}</Alert> : null}
      <section class="card" id="api-key" aria-labelledby="api-key-title">
        <h2 id="api-key-title">{t.apiKeyTitle}</h2>
        {props.newKey ? (
          <Alert kind="warn" title={t.newKeyShownOnce}>
            <Secret page={page} value={props.newKey} label={t.apiKeyTitle} />
          </Alert>
        ) : props.keyHint ? (
          <p>
            {t.currentKey}: <code>{props.keyHint.displayPrefix}…</code>, {t.keyIssuedAt} <When page={page} at={props.keyHint.createdAt} />
          </p>
        ) : (
          <p>{t.noKey}</p>
        )}
        {props.retiringKeys.length > 0 ? (
          <div class="retiring" id="retiring-keys">
            <h3>{t.retiringKeysTitle}</h3>
            <ul class="plain">
              {props.retiringKeys.map((k) => (
                <li>
                  <code>{k.displayPrefix}…</code>, {t.worksUntil} <When page={page} at={k.expiresAt} />{" "}
                  {allows(page, "keys.end_overlap") ? <ActionButton page={page} action={`/shops/${shop.id}/keys/${k.id}/end`} label={t.endOverlapNow} confirm={t.endKeyOverlapConfirm} tone="danger" small /> : null}
                </li>
              ))}
            </ul>
          </div>
        ) : null}
        {!allows(page, "keys.issue") ? null : shop.active ? (
          <>
            <ActionButton page={page} action={`/shops/${shop.id}/key`} label={t.issueKey} confirm={props.keyHint ? t.issueKeyConfirm : undefined}>
              {props.keyHint ? <SelectField name="overlap" label={t.keyOverlapLabel} value="0" options={KEY_OVERLAPS.map((o) => [o, t.overlapChoices[o]])} /> : null}
            </ActionButton>
            {props.keyHint ? <p class="hint">{t.issueKeyNote}</p> : null}
          </>
        ) : (
          <p class="muted">{t.keyOnlyActive}</p>
        )}
      </section>
      <section class="card" aria-labelledby="settings-title">
        <h2 id="settings-title">{t.settingsTitle}</h2>
        {settings.errors.length ? <Alert kind="error" title={t.fixErrors} items={settings.errors} /> : null}
        <form method="post" action={`/shops/${shop.id}/settings`} class="stack">
          <CsrfField page={page} />
          <EditableFields page={page} action="shops.settings">
            <TextField name="name" label={t.shopName} value={settings.name} required maxlength={100} />
            <TextField name="successUrl" label={t.successUrl} value={settings.successUrl} hint={t.returnUrlHint} maxlength={300} inputmode="url" />
            <TextField name="failUrl" label={t.failUrl} value={settings.failUrl} hint={t.returnUrlHint} maxlength={300} inputmode="url" />
            <SelectField
              name="savedMethodConsent"
              label={t.savedMethodConsentLabel}
              value={settings.savedMethodConsent}
              options={SAVE_METHOD_CONSENTS.map((c) => [c, t.savedMethodConsents[c]])}
            />
            <p class="hint">{t.savedMethodConsentHint}</p>
          </EditableFields>
        </form>
      </section>
      <ReceiptSettingsCard page={page} shop={shop} />
      <section class="card" aria-labelledby="about-title">
        <h2 id="about-title">{t.tabShop}</h2>
        <dl class="facts">
          <dt>{t.shopId}</dt>
          <dd>
            <code>{shop.id}</code>
          </dd>
          <dt>{t.status}</dt>
          <dd>{shop.active ? t.active : t.inactive}</dd>
          <dt>{t.kind}</dt>
          <dd>{shop.sandbox ? t.sandbox : t.live}</dd>
          <dt>{t.methods}</dt>
          <dd>{shop.methods.map((m) => t.methodNames[m]).join(", ")}</dd>
          <dt>{t.tariff}</dt>
          <dd>
            {shop.methods.map((m) => (
              <div>
                {t.methodNames[m]}: {tariffText(shop.tariff[m], page)}
              </div>
            ))}
          </dd>
          <dt>{t.createdAt}</dt>
          <dd>
            <When page={page} at={shop.createdAt} />
          </dd>
        </dl>
        <p class="hint">{t.methodsByOperator}</p>
      </section>
    </ShopFrame>
  );
}
