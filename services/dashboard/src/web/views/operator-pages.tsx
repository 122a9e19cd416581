import { CONNECTOR_IDS, MAX_CONNECTORS_PER_METHOD, PAYMENT_METHODS, type ConnectorHealth, type ShopDetail } from "@payaccept/contracts";
import { hundredthsInput } from "../amount-input.ts";
import type { Page } from "../page.ts";
import { ActionButton, Alert, CsrfField, MerchantText, Pager, TextField, When } from "./components.tsx";
import { Layout } from "./layout.tsx";
import { ShopBadges } from "./shop-frame.tsx";
import { tariffText } from "./tariff.tsx";

export const OPERATOR_SHOPS_PER_PAGE = 50;

/** A row of the operators' list: the directory's shop and its merchant's email, from the dashboard's users. */
export type ShopWithOwner = { shop: ShopDetail; ownerEmail: string | null };

/** Every shop of the platform, for operators, a page at a time. */
export function OperatorShopsPage(props: { page: Page; shops: ShopWithOwner[]; total: number; pageNo: number }) {
  const { page } = props;
  const { t } = page;
  return (
    <Layout page={page} title={t.operatorTitle}>
      <h1>{t.operatorTitle}</h1>
      <p class="muted">{t.totalFound(props.total)}</p>
      <table class="shops">
        <thead>
          <tr>
            <th scope="col">{t.shopName}</th>
            <th scope="col">{t.owner}</th>
            <th scope="col">{t.status}</th>
            <th scope="col">{t.methods}</th>
            <th scope="col">{t.tariff}</th>
            <th scope="col">{t.createdAt}</th>
          </tr>
        </thead>
        <tbody>
          {props.shops.map(({ shop, ownerEmail }) => (
            <tr>
              <td data-label={t.shopName}>
                <a href={`/ops/shops/${shop.id}`}>
                  <MerchantText text={shop.name} />
                </a>
              </td>
              <td data-label={t.owner}>{ownerEmail ?? t.none}</td>
              <td data-label={t.status}>
                <ShopBadges page={page} shop={shop} />
              </td>
              <td data-label={t.methods}>{shop.methods.map((m) => t.methodNames[m]).join(", ")}</td>
              <td data-label={t.tariff}>
                {shop.methods.map((m) => (
                  <div>
                    {t.methodNames[m]}: {tariffText(shop.tariff[m], page)}
                  </div>
                ))}
              </td>
              <td data-label={t.createdAt}>
                <When page={page} at={shop.createdAt} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <Pager page={page} current={props.pageNo} pages={Math.ceil(props.total / OPERATOR_SHOPS_PER_PAGE)} href={(n) => `/ops/shops?page=${n}`} />
    </Layout>
  );
}

/**
 * A live shop's acquirers per method, in failover order (docs/connectors.md): one select per
 * position, the connectors this deployment has not configured marked so. Sandbox shops have none.
 */
function ConnectorsCard(props: { page: Page; shop: ShopDetail; connectors: ConnectorHealth[] | null; action: string }) {
  const { page, shop } = props;
  const { t } = page;
  if (shop.sandbox) {
    return (
      <section class="card" id="connectors">
        <h2>{t.connectorsTitle}</h2>
        <p class="muted">{t.connectorsSandbox}</p>
      </section>
    );
  }
  const fallback = props.connectors?.find((c) => c.default)?.id;
  const label = (id: (typeof CONNECTOR_IDS)[number]) => {
    const known = props.connectors?.find((c) => c.id === id);
    return known && !known.configured ? `${t.connectorNames[id]} (${t.connectorNotConfigured})` : t.connectorNames[id];
  };
  return (
    <section class="card" id="connectors">
      <h2>{t.connectorsTitle}</h2>
      <p class="muted">{t.connectorsText}</p>
      <form method="post" action={props.action} class="stack">
        <CsrfField page={page} />
        {PAYMENT_METHODS.map((m) => (
          <fieldset class="connectors">
            <legend>{t.methodNames[m]}</legend>
            {Array.from({ length: MAX_CONNECTORS_PER_METHOD }, (_, i) => (
              <label>
                {t.connectorPosition(i + 1)}{" "}
                <select name={`${m}.${i + 1}`}>
                  <option value="">{i === 0 && fallback ? t.connectorDefault(fallback) : t.connectorNone}</option>
                  {CONNECTOR_IDS.map((id) => (
                    <option value={id} selected={shop.connectors?.[m]?.[i] === id}>
                      {label(id)}
                    </option>
                  ))}
                </select>
              </label>
            ))}
          </fieldset>
        ))}
        <button type="submit" class="button primary">
          {t.saveConnectors}
        </button>
      </form>
    </section>
  );
}

/** One shop for an operator: switch it on or off, choose its methods, its acquirers, set its commission. */
export function OperatorShopPage(props: { page: Page; shop: ShopDetail; ownerEmail: string | undefined; connectors: ConnectorHealth[] | null; notice?: string; errors?: string[] }) {
  const { page, shop } = props;
  const { t } = page;
  const base = `/ops/shops/${shop.id}`;
  return (
    <Layout page={page} title={t.operatorShopTitle(shop.name)}>
      <p class="crumbs">
        <a href="/ops/shops">{t.operatorTitle}</a>
      </p>
      <h1 class="shop-title">
        <span>{t.operatorShopHeading(<MerchantText text={shop.name} />)}</span> <ShopBadges page={page} shop={shop} />
      </h1>
      {props.notice ? <Alert kind="ok">{props.notice}</Alert> : null}
      {props.errors?.length ? <Alert kind="error" title={t.actionRefused} items={props.errors} /> : null}
      <section class="card">
        <dl class="facts">
          <dt>{t.shopId}</dt>
          <dd>
            <code>{shop.id}</code>
          </dd>
          <dt>{t.owner}</dt>
          <dd>{props.ownerEmail ?? t.none}</dd>
          <dt>{t.createdAt}</dt>
          <dd>
            <When page={page} at={shop.createdAt} />
          </dd>
        </dl>
        <ActionButton
          page={page}
          action={`${base}/active`}
          label={shop.active ? t.deactivate : t.activate}
          confirm={shop.active ? t.deactivateConfirm : undefined}
          tone={shop.active ? "danger" : "primary"}
          fields={{ active: shop.active ? "0" : "1" }}
        />
      </section>
      <section class="card">
        <h2>{t.methods}</h2>
        <form method="post" action={`${base}/methods`} class="stack">
          <CsrfField page={page} />
          {PAYMENT_METHODS.map((m) => (
            <label class="choice">
              <input type="checkbox" name="method" value={m} checked={shop.methods.includes(m)} /> {t.methodNames[m]}
            </label>
          ))}
          <button type="submit" class="button primary">
            {t.saveMethods}
          </button>
        </form>
      </section>
      <ConnectorsCard page={page} shop={shop} connectors={props.connectors} action={`${base}/connectors`} />
      <section class="card">
        <h2>{t.tariff}</h2>
        <form method="post" action={`${base}/tariff`} class="stack">
          <CsrfField page={page} />
          {PAYMENT_METHODS.map((m) => (
            <fieldset class="tariff">
              <legend>{t.methodNames[m]}</legend>
              <TextField name={`${m}.percent`} label={t.tariffPercent} value={hundredthsInput(shop.tariff[m].percentBp, page.lang)} inputmode="decimal" required />
              <TextField name={`${m}.fixed`} label={t.tariffFixed} value={hundredthsInput(shop.tariff[m].fixedKopecks, page.lang)} inputmode="decimal" required />
              <TextField name={`${m}.min`} label={t.tariffMin} value={hundredthsInput(shop.tariff[m].minKopecks, page.lang)} inputmode="decimal" required />
            </fieldset>
          ))}
          <button type="submit" class="button primary">
            {t.saveTariff}
          </button>
        </form>
      </section>
    </Layout>
  );
}

/** The acquirers as a payments process sees them (rpcs.payments.connectors): configured, default, circuit and recent calls. */
export function OperatorConnectorsPage(props: { page: Page; connectors: ConnectorHealth[] | null }) {
  const { page } = props;
  const { t } = page;
  const percent = (r: number | null) => (r === null ? t.none : `${Math.round(r * 1000) / 10}\u00a0%`);
  return (
    <Layout page={page} title={t.connectorsTitle}>
      <h1>{t.connectorsTitle}</h1>
      {props.connectors === null ? (
        <Alert kind="error">{t.connectorsUnavailable}</Alert>
      ) : (
        <>
          <p class="muted">{t.connectorsHealthText(props.connectors[0]?.windowSeconds || 300)}</p>
          <table class="connectors">
            <thead>
              <tr>
                <th scope="col">{t.connectorColumn}</th>
                <th scope="col">{t.connectorConfigured}</th>
                <th scope="col">{t.connectorCircuit}</th>
                <th scope="col">{t.connectorCalls}</th>
                <th scope="col">{t.connectorSuccess}</th>
                <th scope="col">{t.connectorP95}</th>
              </tr>
            </thead>
            <tbody>
              {props.connectors.map((c) => (
                <tr data-connector={c.id}>
                  <td data-label={t.connectorColumn}>
                    {t.connectorNames[c.id]} {c.default ? <span class="badge">{t.connectorDefaultMark}</span> : null}
                  </td>
                  <td data-label={t.connectorConfigured}>{c.configured ? t.yes : t.no}</td>
                  <td data-label={t.connectorCircuit} class={`circuit-${c.circuit}`}>
                    {c.configured ? t.circuitStates[c.circuit] : t.none}
                  </td>
                  <td data-label={t.connectorCalls}>{c.calls}</td>
                  <td data-label={t.connectorSuccess}>{percent(c.successRatio)}</td>
                  <td data-label={t.connectorP95}>{c.p95Ms === null ? t.none : `${c.p95Ms}\u00a0ms`}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </Layout>
  );
}
