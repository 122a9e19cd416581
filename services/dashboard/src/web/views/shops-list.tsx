import type { ShopWithKey } from "@payaccept/contracts";
import { allows, type Page } from "../page.ts";
import { Alert, CsrfField, MerchantText, TextField } from "./components.tsx";
import { Layout } from "./layout.tsx";
import { ShopBadges } from "./shop-frame.tsx";

export type NewShopForm = { name?: string; sandbox?: boolean; errors?: string[] };

/** The account's shops and the form that creates one (sandbox or live). */
export function ShopsPage(props: { page: Page; shops: ShopWithKey[]; form?: NewShopForm }) {
  const { t } = props.page;
  const form = props.form ?? {};
  return (
    <Layout page={props.page} title={t.shopsTitle}>
      <h1>{t.shopsTitle}</h1>
      {props.shops.length === 0 ? <p class="muted">{t.noShops}</p> : null}
      <ul class="shop-list">
        {props.shops.map(({ shop, key }) => (
          <li class="card">
            <h2>
              <a href={`/shops/${shop.id}`}>
                <MerchantText text={shop.name} />
              </a>
            </h2>
            <p>
              <ShopBadges page={props.page} shop={shop} />
            </p>
            <p class="muted small">
              {t.methods}: {shop.methods.map((m) => t.methodNames[m]).join(", ")}
              {key ? (
                <>
                  {" · "}
                  {t.currentKey}: <code>{key.displayPrefix}…</code>
                </>
              ) : null}
            </p>
          </li>
        ))}
      </ul>
      {allows(props.page, "shops.create") ? (
      <section class="card" aria-labelledby="new-shop">
        <h2 id="new-shop">{t.createShopTitle}</h2>
        {form.errors?.length ? <Alert kind="error" title={t.fixErrors} items={form.errors} /> : null}
        <form method="post" action="/shops" class="stack">
          <CsrfField page={props.page} />
          <TextField name="name" label={t.shopName} value={form.name} required maxlength={100} />
          <fieldset>
            <legend>{t.shopKind}</legend>
            <label class="choice">
              <input type="radio" name="kind" value="sandbox" checked={form.sandbox !== false} /> {t.kindSandbox}
            </label>
            <label class="choice">
              <input type="radio" name="kind" value="live" checked={form.sandbox === false} /> {t.kindLive}
            </label>
          </fieldset>
          <button type="submit" class="button primary">
            {t.createShopButton}
          </button>
        </form>
      </section>
      ) : null}
    </Layout>
  );
}
