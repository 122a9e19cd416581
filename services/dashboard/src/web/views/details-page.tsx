import { accountTail, LEGAL_FORMS, type AccountDetailsView } from "@payaccept/contracts";
import type { Loaded } from "../backend.ts";
import { allows, type Page } from "../page.ts";
import { formatMoscow } from "@payaccept/web-ui";
import { Alert, CsrfField, SelectField, TextField, Unavailable } from "./components.tsx";
import { Layout } from "./layout.tsx";

/** The form's fields, as named in the page (flat) and where their problems come from in AccountDetailsInput. */
export const DETAILS_FIELDS = {
  legalForm: "legalForm",
  name: "name",
  inn: "inn",
  ogrn: "ogrn",
  kpp: "kpp",
  bik: "payout.bik",
  bankName: "payout.bankName",
  correspondentAccount: "payout.correspondentAccount",
  account: "payout.account",
  recipientName: "payout.recipientName",
} as const;
export type DetailsField = keyof typeof DETAILS_FIELDS;

/** What the form shows: the values typed (or stored), each field's problem, and problems of no field. */
export type DetailsForm = { values: Record<DetailsField, string>; errors: Partial<Record<DetailsField, string>>; general: string[] };

/** The form filled with the stored details, or empty. */
export function formOfView(view: AccountDetailsView | undefined): DetailsForm {
  const d = view?.details;
  const values: Record<DetailsField, string> = {
    legalForm: d?.legalForm ?? "company",
    name: d?.name ?? "",
    inn: d?.inn ?? "",
    ogrn: d?.ogrn ?? "",
    kpp: d?.kpp ?? "",
    bik: d?.payout.bik ?? "",
    bankName: d?.payout.bankName ?? "",
    correspondentAccount: d?.payout.correspondentAccount ?? "",
    account: d?.payout.account ?? "",
    recipientName: d?.payout.recipientName ?? "",
  };
  return { values, errors: {}, general: [] };
}

const moscowTime = (page: Page, at: number) => `${formatMoscow(at, page.lang)}\u00A0${page.t.msk}`;

/** While a new payout account holds payouts: until when, and since when. */
export function HeldNotice(props: { page: Page; view: AccountDetailsView }) {
  const { page, view } = props;
  if (view.payoutsHeldUntil === null || view.payoutAccountChangedAt === null) return null;
  return (
    <Alert kind="warn">{page.t.payoutsHeld(moscowTime(page, view.payoutsHeldUntil), moscowTime(page, view.payoutAccountChangedAt))}</Alert>
  );
}

/** The details as the balance page sums them up: the payee and the account's last digits. */
export function DetailsSummary(props: { page: Page; view: Loaded<AccountDetailsView> }) {
  const { page } = props;
  const { t } = page;
  if (!props.view.ok) return <Unavailable page={page} service={props.view.service} />;
  const view = props.view.value;
  const d = view.details;
  return (
    <>
      <HeldNotice page={page} view={view} />
      {d ? (
        <p class="payee">
          {t.payoutsGoTo(d.payout.recipientName, accountTail(d.payout.account), d.payout.bankName)}
        </p>
      ) : (
        <p class="payee">{t.detailsNone}</p>
      )}
      <p>
        <a href="/balance/details">{d && allows(page, "details.edit") ? t.detailsEdit : d ? t.detailsTitle : t.detailsEnter}</a>
      </p>
    </>
  );
}

function ReadOnly(props: { page: Page; view: AccountDetailsView }) {
  const { t } = props.page;
  const d = props.view.details;
  if (!d) return <p>{t.detailsNone}</p>;
  const rows: [string, string][] = [
    [t.legalForm, t.legalForms[d.legalForm]],
    [t.detailsName, d.name],
    [t.inn, d.inn],
    [t.ogrn, d.ogrn],
    ...(d.kpp ? [[t.kpp, d.kpp] as [string, string]] : []),
    [t.bik, d.payout.bik],
    [t.bankName, d.payout.bankName],
    [t.correspondentAccount, d.payout.correspondentAccount],
    [t.settlementAccount, d.payout.account],
    [t.recipientName, d.payout.recipientName],
  ];
  return (
    <dl class="facts">
      {rows.map(([label, value]) => (
        <div>
          <dt>{label}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/**
 * The account's legal and bank details: read by whoever sees the balance, entered and changed by
 * an owner or admin with a second factor (docs/dashboard.md, "Legal and bank details"). Each
 * problem is said next to its field, in an accountant's words.
 */
export function DetailsPage(props: { page: Page; view: Loaded<AccountDetailsView>; form: DetailsForm; twoFactor: boolean; notice?: string }) {
  const { page, form } = props;
  const { t } = page;
  const field = (name: DetailsField, label: string, hint: string, extra: { inputmode?: "numeric"; maxlength?: number } = {}) => (
    <TextField name={name} label={label} value={form.values[name]} hint={hint} error={form.errors[name]} maxlength={extra.maxlength ?? 160} inputmode={extra.inputmode} />
  );
  const editable = allows(page, "details.edit") && props.twoFactor;
  return (
    <Layout page={page} title={t.detailsTitle}>
      <h1>{t.detailsTitle}</h1>
      {props.notice ? <Alert kind="ok">{props.notice}</Alert> : null}
      {props.view.ok ? <HeldNotice page={page} view={props.view.value} /> : <Unavailable page={page} service={props.view.service} />}
      {allows(page, "details.edit") && !props.twoFactor ? (
        <Alert kind="warn">
          {t.detailsNeedTwoFactor} <a href="/account#two-factor">{t.detailsTurnOnTwoFactor}</a>
        </Alert>
      ) : null}
      {!editable ? (
        <section class="card">{props.view.ok ? <ReadOnly page={page} view={props.view.value} /> : null}</section>
      ) : (
        <form method="post" action="/balance/details" class="stack" novalidate>
          <CsrfField page={page} />
          {form.general.length > 0 || Object.keys(form.errors).length > 0 ? <Alert kind="error" title={t.detailsFieldsInvalid} items={form.general} /> : null}
          <section class="card stack" aria-labelledby="details-company">
            <h2 id="details-company">{t.detailsCompany}</h2>
            <SelectField name="legalForm" label={t.legalForm} value={form.values.legalForm} options={LEGAL_FORMS.map((f): [string, string] => [f, t.legalForms[f]])} />
            {field("name", t.detailsName, t.detailsNameHint)}
            {field("inn", t.inn, t.innHint, { inputmode: "numeric", maxlength: 20 })}
            {field("ogrn", t.ogrn, t.ogrnHint, { inputmode: "numeric", maxlength: 20 })}
            {field("kpp", t.kpp, t.kppHint, { maxlength: 20 })}
          </section>
          <section class="card stack" aria-labelledby="details-payout">
            <h2 id="details-payout">{t.detailsPayoutAccount}</h2>
            {field("bik", t.bik, t.bikHint, { inputmode: "numeric", maxlength: 20 })}
            {field("bankName", t.bankName, t.bankNameHint, { maxlength: 140 })}
            {field("correspondentAccount", t.correspondentAccount, t.correspondentAccountHint, { inputmode: "numeric", maxlength: 30 })}
            {field("account", t.settlementAccount, t.settlementAccountHint, { inputmode: "numeric", maxlength: 30 })}
            {field("recipientName", t.recipientName, t.recipientNameHint)}
            <p class="muted">{t.detailsHoldWarning}</p>
          </section>
          <button type="submit" class="button primary">
            {t.detailsSave}
          </button>
        </form>
      )}
    </Layout>
  );
}
