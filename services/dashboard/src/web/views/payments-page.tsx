import { PAYMENT_SORTS, PAYMENT_STATUSES, type Payment, type PaymentSort, type ShopDetail, type StatusTotal } from "@payaccept/contracts";
import { formatDay, formatRubles } from "@payaccept/web-ui";
import type { Loaded } from "../backend.ts";
import { DEFAULT_SORT, filterQuery, PAYMENTS_PER_PAGE, type FilterProblem, type PaymentFilter } from "../payment-filter.ts";
import { allows, type Page } from "../page.ts";
import { HELD, paidOf } from "../paid.ts";
import { Alert, Money, Pager, PaymentStatusOf, SelectField, TextField, Unavailable, When } from "./components.tsx";
import { ShopFrame } from "./shop-frame.tsx";

/** What the filter found: a page of the list, one payment by order number (or none), or nothing asked. */
export type PaymentsResult =
  | { kind: "list"; loaded: Loaded<{ items: Payment[]; total: number; byStatus: StatusTotal[] }> }
  | { kind: "lookup"; loaded: Loaded<Payment | null> }
  | { kind: "invalid"; problems: FilterProblem[] };

/** A column heading that sorts by it: newest or largest first, then the other way on a second click. */
function SortHeading(props: { label: string; field: "created" | "amount"; filter?: PaymentFilter; shopId: string; num?: boolean }) {
  const { filter } = props;
  if (!filter) return <th scope="col" class={props.num ? "num" : undefined}>{props.label}</th>;
  const current = filter.sort.startsWith(props.field) ? filter.sort : undefined;
  const next: PaymentSort = current === `${props.field}_desc` ? `${props.field}_asc` : `${props.field}_desc`;
  const arrow = current === undefined ? "" : current.endsWith("_desc") ? " ↓" : " ↑";
  return (
    <th scope="col" class={props.num ? "num" : undefined} aria-sort={current === undefined ? undefined : current.endsWith("_desc") ? "descending" : "ascending"}>
      <a href={`/shops/${props.shopId}/payments${filterQuery(filter, { sort: next, page: 1 })}`}>
        {props.label}
        {arrow}
      </a>
    </th>
  );
}

/**
 * The payments as a table; on a phone each row folds into three short lines (order and amount;
 * status and time; method and description) instead of seven labelled ones (dashboard.css).
 */
function PaymentRows(props: { page: Page; shopId: string; payments: Payment[]; filter?: PaymentFilter }) {
  const { page } = props;
  const { t } = page;
  return (
    <table class="payments">
      <thead>
        <tr>
          <SortHeading label={t.created} field="created" filter={props.filter} shopId={props.shopId} />
          <th scope="col">{t.order}</th>
          <th scope="col">{t.description}</th>
          <SortHeading label={t.amount} field="amount" filter={props.filter} shopId={props.shopId} num />
          <th scope="col">{t.status}</th>
          <th scope="col">{t.method}</th>
          <th scope="col">{t.paidAt}</th>
        </tr>
      </thead>
      <tbody>
        {props.payments.map((p) => (
          <tr>
            <td data-label={t.created} class="created">
              <When page={page} at={p.createdAt} />
            </td>
            <td data-label={t.order} class="order">
              <a href={`/shops/${props.shopId}/payments/${p.id}`}>{p.orderId}</a>
            </td>
            <td data-label={t.description} class={p.description ? "description" : "description absent"}>
              {p.description ?? t.none}
            </td>
            <td data-label={t.amount} class="num amount">
              <Money page={page} kopecks={p.amountKopecks} />
            </td>
            <td data-label={t.status} class="status">
              <PaymentStatusOf page={page} payment={p} />
            </td>
            <td data-label={t.method} class={p.method ? "method" : "method absent"}>
              {p.method ? t.methodNames[p.method] : t.none}
            </td>
            <td data-label={t.paidAt} class="paid">
              <When page={page} at={p.paidAt} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * What the filter found: how many payments, and of them how many were paid for how much (before
 * refunds, as the overview's turnover). A sum of every status read like revenue while it added
 * invoices never paid, declined or canceled.
 */
function Totals(props: { page: Page; list: { total: number; byStatus: StatusTotal[] } }) {
  const { t, lang } = props.page;
  const paid = paidOf(props.list.byStatus);
  const held = paidOf(props.list.byStatus, HELD);
  return (
    <p class="total">
      {t.paymentsFound(props.list.total)}
      {paid.count > 0 ? <span class="paid-total"> · {t.paidFound(paid.count, formatRubles(paid.sumKopecks, lang))}</span> : null}
      {held.count > 0 ? <span class="held-total"> · {t.heldFound(held.count, formatRubles(held.sumKopecks, lang))}</span> : null}
    </p>
  );
}

function Result(props: { page: Page; shop: ShopDetail; filter: PaymentFilter; result: PaymentsResult }) {
  const { page, result } = props;
  const { t } = page;
  if (result.kind === "invalid") return <Alert kind="error" items={result.problems.map((p) => t[p])} />;
  if (!result.loaded.ok) return <Unavailable page={page} service={result.loaded.service} />;
  if (result.kind === "lookup") {
    const payment = result.loaded.value;
    return payment ? <PaymentRows page={page} shopId={props.shop.id} payments={[payment]} /> : <p class="muted">{t.orderNotFound}</p>;
  }
  const list = result.loaded.value;
  return (
    <>
      <Totals page={page} list={list} />
      {list.items.length > 0 ? <PaymentRows page={page} shopId={props.shop.id} payments={list.items} filter={props.filter} /> : <p class="muted">{t.noPayments}</p>}
      <Pager
        page={page}
        current={props.filter.page}
        pages={Math.ceil(list.total / PAYMENTS_PER_PAGE)}
        href={(n) => `/shops/${props.shop.id}/payments${filterQuery(props.filter, { page: n })}`}
      />
    </>
  );
}

/** The filter in a few words, for the folded form's heading on a phone: what the list below is. */
function filterSummary(page: Page, f: PaymentFilter): string {
  const { t, lang } = page;
  if (f.orderId) return t.orderIs(f.orderId);
  const parts = [
    f.from && f.to ? t.periodFromTo(formatDay(f.from, lang), formatDay(f.to, lang)) : f.from ? t.periodSince(formatDay(f.from, lang)) : f.to ? t.periodUntil(formatDay(f.to, lang)) : t.allTime,
    f.statuses.length > 0 ? f.statuses.map((s) => t.statuses[s]).join(", ") : t.allStatuses,
    t.sorts[f.sort].toLowerCase(),
  ];
  return parts.join(" · ");
}

/** The Payments tab: the API's filters (period, statuses, order number), pages, and the CSV export. */
export function PaymentsPage(props: { page: Page; shop: ShopDetail; filter: PaymentFilter; result: PaymentsResult }) {
  const { page, shop, filter } = props;
  const { t } = page;
  const base = `/shops/${shop.id}/payments`;
  const exportQuery = filterQuery({ ...filter, orderId: "", sort: DEFAULT_SORT, page: 1 });
  return (
    <ShopFrame page={page} shop={shop} tab="payments" title={t.paymentsTitle}>
      <details class="card filter-fold" open={props.result.kind === "invalid" ? true : undefined}>
        <summary>
          <span class="fold-title">{t.filtersTitle}</span> <span class="muted">{filterSummary(page, filter)}</span>
        </summary>
        <form method="get" action={base} class="filters">
          <TextField name="from" type="date" label={t.periodFrom} value={filter.from} />
          <TextField name="to" type="date" label={t.periodTo} value={filter.to} />
          <fieldset class="statuses">
            <legend>{t.statusFilter}</legend>
            {PAYMENT_STATUSES.map((s) => (
              <label class="choice">
                <input type="checkbox" name="status" value={s} checked={filter.statuses.includes(s)} /> {t.statuses[s]}
              </label>
            ))}
          </fieldset>
          <TextField name="orderId" label={t.orderIdFilter} value={filter.orderId} hint={t.orderIdFilterHint} maxlength={64} />
          <SelectField name="sort" label={t.sortOrder} value={filter.sort} options={PAYMENT_SORTS.map((s) => [s, t.sorts[s]])} />
          <div class="actions">
            <button type="submit" class="button primary">
              {t.applyFilters}
            </button>
            <a class="button plain" href={base}>
              {t.resetFilters}
            </a>
            {allows(page, "payments.export") ? (
              <a class="button plain" href={`/shops/${shop.id}/payments.csv${exportQuery}`} download>
                {t.exportCsv}
              </a>
            ) : null}
          </div>
        </form>
      </details>
      <section class="card">
        <Result page={page} shop={shop} filter={filter} result={props.result} />
      </section>
    </ShopFrame>
  );
}
