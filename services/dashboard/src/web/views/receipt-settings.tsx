import { TAXATION_SYSTEMS, VAT_RATES, type TaxationSystem, type ShopDetail, type VatRate } from "@payaccept/contracts";
import type { Page } from "../page.ts";
import { CsrfField, EditableFields } from "./components.tsx";

/** The names on a Russian receipt, the same in both languages. */
export const TAXATION_LABELS: Record<TaxationSystem, string> = {
  osn: "ОСН",
  usn_income: "УСН доход",
  usn_income_outcome: "УСН доход − расход",
  esn: "ЕСХН",
  patent: "ПСН",
};
export const VAT_LABELS: Record<VatRate, string> = {
  none: "без НДС",
  vat0: "0 %",
  vat5: "5 %",
  vat7: "7 %",
  vat10: "10 %",
  vat20: "20 %",
  vat22: "22 %",
  vat105: "5/105",
  vat107: "7/107",
  vat110: "10/110",
  vat120: "20/120",
  vat122: "22/122",
};

function Choice<K extends string>(props: { name: string; label: string; page: Page; options: K[]; labels: Record<K, string>; value: K | null }) {
  const id = `f-${props.name}`;
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <select id={id} name={props.name}>
        <option value="" selected={props.value === null}>
          {props.page.t.receiptNoDefault}
        </option>
        {props.options.map((o) => (
          <option value={o} selected={props.value === o}>
            {props.labels[o]}
          </option>
        ))}
      </select>
    </div>
  );
}

/** The shop's receipt settings (docs/receipts.md): whether a receipt is required, and the defaults of a receipt. */
export function ReceiptSettingsCard(props: { page: Page; shop: ShopDetail }) {
  const { page, shop } = props;
  const { t } = page;
  const current = shop.receipts ?? { required: false, taxation: null, vat: null };
  return (
    <section class="card" id="receipts" aria-labelledby="receipts-title">
      <h2 id="receipts-title">{t.receiptSettings}</h2>
      <form method="post" action={`/shops/${shop.id}/receipts`} class="stack">
        <CsrfField page={page} />
        <EditableFields page={page} action="receipts.settings">
          <label>
            <input type="checkbox" name="required" value="on" checked={current.required} /> {t.receiptRequired}
          </label>
          <Choice name="taxation" label={t.receiptTaxation} page={page} options={Object.keys(TAXATION_SYSTEMS) as TaxationSystem[]} labels={TAXATION_LABELS} value={current.taxation} />
          <Choice name="vat" label={t.receiptVat} page={page} options={Object.keys(VAT_RATES) as VatRate[]} labels={VAT_LABELS} value={current.vat} />
        </EditableFields>
      </form>
    </section>
  );
}
