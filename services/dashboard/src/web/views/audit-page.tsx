import { AUDIT_ACTIONS, type AuditCursor, type AuditEvent, type ShopDetail } from "@payaccept/contracts";
import { AUDIT_PER_PAGE, auditQuery, type AuditForm } from "../audit-filter.ts";
import type { Loaded } from "../backend.ts";
import type { Page } from "../page.ts";
import { Alert, MerchantText, SelectField, TextField, Unavailable, When } from "./components.tsx";
import { Layout } from "./layout.tsx";

type Props = {
  page: Page;
  form: AuditForm;
  shops: ShopDetail[];
  /** undefined: the filter could not be read (shown as a problem, nothing asked). */
  entries: Loaded<AuditEvent[]> | undefined;
  before?: AuditCursor;
};

/** What changed, as one line of JSON a person can read: before → after. */
const change = (e: AuditEvent) => [e.before, e.after].map((v) => (v === null ? "" : JSON.stringify(v))).filter(Boolean).join(" → ");

function Entry(props: { page: Page; entry: AuditEvent; shopName?: string }) {
  const { page, entry: e } = props;
  const { t } = page;
  return (
    <tr>
      <td data-label={t.auditWhen}>
        <When page={page} at={e.at} />
      </td>
      <td data-label={t.auditActor}>
        <span class="badge neutral">{t.actorKinds[e.actor.kind]}</span> <bdi class="actor">{e.actor.label}</bdi>
        {e.actor.ip ? <div class="small muted">{e.actor.ip}</div> : null}
        {e.actor.userAgent ? <div class="small muted ua">{e.actor.userAgent}</div> : null}
      </td>
      <td data-label={t.auditAction}>{t.auditActions[e.action] ?? e.action}</td>
      <td data-label={t.auditShop}>{e.shopId ? props.shopName !== undefined ? <MerchantText text={props.shopName} /> : <code>{e.shopId}</code> : "—"}</td>
      <td data-label={t.auditDetails} class="details">
        {e.target ? (
          <div class="small">
            {e.target.type}: <code>{e.target.id}</code>
          </div>
        ) : null}
        {change(e) ? <code class="change">{change(e)}</code> : null}
      </td>
    </tr>
  );
}

/** The account's audit log: who did what, when, from where, newest first. */
export function AuditPage(props: Props) {
  const { page, form, entries } = props;
  const { t } = page;
  const items = entries?.ok ? entries.value : [];
  const last = items.length === AUDIT_PER_PAGE ? items.at(-1) : undefined;
  const shopNames = new Map(props.shops.map((s) => [s.id, s.name]));
  return (
    <Layout page={page} title={t.auditTitle}>
      <h1>{t.auditTitle}</h1>
      <p class="muted">{t.auditIntro}</p>
      <form method="get" action="/audit" class="filters audit-filters">
        <TextField name="actor" label={t.auditActor} value={form.actor} hint={t.auditActorHint} maxlength={320} />
        <SelectField name="action" label={t.auditAction} value={form.action} options={[["", t.anyAction], ...AUDIT_ACTIONS.map((a): [string, string] => [a, t.auditActions[a]])]} />
        <SelectField name="shop" label={t.auditShop} value={form.shop} options={[["", t.allShops], ...props.shops.map((s): [string, string] => [s.id, s.name])]} />
        <TextField name="from" type="date" label={t.periodFrom} value={form.from} />
        <TextField name="to" type="date" label={t.periodTo} value={form.to} />
        <div class="actions">
          <button type="submit" class="button primary">
            {t.applyFilters}
          </button>
          <a class="button plain" href="/audit">
            {t.resetFilters}
          </a>
          <a class="button plain" href={`/audit.csv${auditQuery(form)}`}>
            {t.auditExport}
          </a>
        </div>
      </form>
      {entries === undefined ? (
        <Alert kind="error">{t.auditFilterInvalid}</Alert>
      ) : !entries.ok ? (
        <Unavailable page={page} service={entries.service} />
      ) : items.length === 0 ? (
        <p class="muted">{t.auditEmpty}</p>
      ) : (
        <table class="table audit-log">
          <thead>
            <tr>
              <th>{t.auditWhen}</th>
              <th>{t.auditActor}</th>
              <th>{t.auditAction}</th>
              <th>{t.auditShop}</th>
              <th>{t.auditDetails}</th>
            </tr>
          </thead>
          <tbody>
            {items.map((e) => (
              <Entry page={page} entry={e} shopName={e.shopId ? shopNames.get(e.shopId) : undefined} />
            ))}
          </tbody>
        </table>
      )}
      <p class="pager">
        {props.before ? <a href={`/audit${auditQuery(form)}`}>{t.auditNewest}</a> : null}
        {last ? <a href={`/audit${auditQuery(form, { at: last.at, id: last.id })}`}>{t.auditOlder}</a> : null}
      </p>
    </Layout>
  );
}
