import type { PaymentMethodList, SavedPaymentMethod, ShopDetail } from "@payaccept/contracts";
import { savedMethodLabel } from "@payaccept/web-ui";
import type { Loaded } from "../backend.ts";
import { allows, type Page } from "../page.ts";
import { Alert, Badge, CsrfField, TextField, Unavailable, When } from "./components.tsx";
import { methodsHref } from "./payment-page.tsx";
import { ShopFrame } from "./shop-frame.tsx";

export const METHODS_PER_PAGE = 50;

const STATUS_TONE = { ACTIVE: "ok", EXPIRED: "neutral", REVOKED: "bad" } as const;

/** A method's status, and for a revoked one by whom (the buyer in their bank app reads differently from you). */
function MethodStatus(props: { page: Page; method: SavedPaymentMethod }) {
  const { t } = props.page;
  const m = props.method;
  return (
    <>
      <Badge tone={STATUS_TONE[m.status]}>{t.methodStatuses[m.status] ?? m.status}</Badge>
      {m.revokedBy ? <span class="small muted block">{t.revokedByText(t.revokedBy[m.revokedBy] ?? m.revokedBy)}</span> : null}
      {m.deactivatedAt ? (
        <span class="small muted block">
          <When page={props.page} at={m.deactivatedAt} />
        </span>
      ) : null}
    </>
  );
}

/** The methods as a table (cards on a phone, as the payments list): what, whose, whether chargeable, from which payment. */
function MethodRows(props: { page: Page; shop: ShopDetail; methods: SavedPaymentMethod[] }) {
  const { page, shop } = props;
  const { t } = page;
  const c = t.methodColumns;
  return (
    <table class="payments methods">
      <thead>
        <tr>
          <th scope="col">{c.method}</th>
          <th scope="col">{c.customer}</th>
          <th scope="col">{c.status}</th>
          <th scope="col">{c.savedAt}</th>
          <th scope="col">{c.payment}</th>
          <th scope="col">
            <span class="visually-hidden">{t.revoke}</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {props.methods.map((m) => (
          <tr>
            <td data-label={c.method} class="saved-method">
              {savedMethodLabel(m, page.lang)}
            </td>
            <td data-label={c.customer}>{m.customerId ?? t.none}</td>
            <td data-label={c.status} class="status">
              <MethodStatus page={page} method={m} />
            </td>
            <td data-label={c.savedAt}>
              <When page={page} at={m.createdAt} />
            </td>
            <td data-label={c.payment}>
              <a href={`/shops/${shop.id}/payments/${m.paymentId}`}>{t.savedAtPayment}</a>
            </td>
            <td>
              {m.status === "ACTIVE" && allows(page, "payments.refund") ? (
                <a class="button danger small" href={`/shops/${shop.id}/methods/${m.id}/revoke`}>
                  {t.revoke}
                </a>
              ) : null}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A shop's saved methods, newest first: a customer's by customerId, or everyone's, page by page. */
export function MethodsPage(props: { page: Page; shop: ShopDetail; customerId: string; list: Loaded<PaymentMethodList>; notice?: string }) {
  const { page, shop } = props;
  const { t } = page;
  const base = `/shops/${shop.id}/methods`;
  const query = props.customerId ? `customerId=${encodeURIComponent(props.customerId)}&` : "";
  return (
    <ShopFrame page={page} shop={shop} tab="methods" title={t.methodsTitle}>
      {props.notice ? <Alert kind="ok">{props.notice}</Alert> : null}
      <section class="card">
        <h2>{t.methodsTitle}</h2>
        <p class="muted">{t.methodsIntro}</p>
        <form method="get" action={base} class="filters" role="search">
          <TextField name="customerId" label={t.methodsCustomer} value={props.customerId} maxlength={64} />
          <div class="actions">
            <button type="submit" class="button primary">
              {t.methodsSearch}
            </button>
            {props.customerId ? (
              <a class="button plain" href={base}>
                {t.methodsAll}
              </a>
            ) : null}
          </div>
        </form>
        {!props.list.ok ? (
          <Unavailable page={page} service={props.list.service} />
        ) : props.list.value.items.length === 0 ? (
          <p class="muted">{t.noMethods}</p>
        ) : (
          <>
            <MethodRows page={page} shop={shop} methods={props.list.value.items} />
            {props.list.value.hasMore ? (
              <p>
                <a href={`${base}?${query}after=${props.list.value.items.at(-1)!.id}`}>{t.moreMethods}</a>
              </p>
            ) : null}
          </>
        )}
      </section>
    </ShopFrame>
  );
}

/** The list a method belongs on: its customer's, or everyone's for a method saved without a customerId. */
export const methodsBack = (shopId: string, m: SavedPaymentMethod) => (m.customerId === null ? `/shops/${shopId}/methods` : methodsHref(shopId, m.customerId));

/** Revoking a method asks first, saying what the shop loses. */
export function ConfirmRevoke(props: { page: Page; shop: ShopDetail; method: SavedPaymentMethod; errors?: string[] }) {
  const { page, shop, method } = props;
  const { t } = page;
  const back = methodsBack(shop.id, method);
  return (
    <ShopFrame page={page} shop={shop} tab="methods" title={t.revokeConfirmTitle}>
      <section class="card narrow">
        <h2>{t.revokeConfirmTitle}</h2>
        {props.errors?.length ? <Alert kind="error" title={t.actionRefused} items={props.errors} /> : null}
        <p>{t.revokeConfirmText(savedMethodLabel(method, page.lang), method.customerId ?? t.none)}</p>
        <form method="post" action={`/shops/${shop.id}/methods/${method.id}/revoke`} class="actions">
          <CsrfField page={page} />
          <button type="submit" class="button danger">
            {t.revokeConfirmButton}
          </button>
          <a class="button plain" href={back}>
            {t.keepIt}
          </a>
        </form>
      </section>
    </ShopFrame>
  );
}
