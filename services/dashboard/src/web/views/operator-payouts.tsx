import type { Payout, PayoutBatch, StatementLine, StatementReport } from "@payaccept/contracts";
import type { Loaded } from "../backend.ts";
import { formatDay, formatRubles } from "@payaccept/web-ui";
import type { Page } from "../page.ts";
import { Alert, CsrfField, Money, Unavailable, When } from "./components.tsx";
import { Layout } from "./layout.tsx";

/** What the page shows after an action: a file made (and what waits), or a statement's report. */
export type PayoutsNotice =
  | { kind: "file"; orders: number; totalKopecks: number; waiting: number; batchId: string | null }
  | { kind: "statement"; report: StatementReport }
  | { kind: "refused"; lines: string[] };

function Payouts(props: { page: Page; payouts: Payout[]; empty: string; sent?: boolean }) {
  const { page } = props;
  const { t } = page;
  if (props.payouts.length === 0) return <p class="muted">{props.empty}</p>;
  return (
    <table class={props.sent ? "sent-payouts" : "pending-payouts"}>
      <thead>
        <tr>
          <th scope="col">{t.created}</th>
          <th scope="col">{t.opsAccount}</th>
          <th scope="col" class="num">
            {t.amount}
          </th>
          {props.sent ? <th scope="col">{t.opsOrder}</th> : null}
        </tr>
      </thead>
      <tbody>
        {props.payouts.map((p) => (
          <tr>
            <td data-label={t.created}>
              <When page={page} at={p.createdAt} />
            </td>
            <td data-label={t.opsAccount}>
              <code>{p.accountId}</code>
            </td>
            <td data-label={t.amount} class="num">
              <Money page={page} kopecks={p.amountKopecks} />
            </td>
            {props.sent && p.order ? <td data-label={t.opsOrder}>{t.opsOrderText(p.order.number, formatDay(p.order.date, page.lang), p.order.reference, p.order.account)}</td> : null}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function ReportLines(props: { page: Page; title: string; lines: StatementLine[] }) {
  if (props.lines.length === 0) return null;
  return (
    <>
      <h3>
        {props.title}: {props.lines.length}
      </h3>
      <ul>
        {props.lines.map((l) => (
          <li>
            {props.page.t.opsReportLine(l.line, l.reference)} <Money page={props.page} kopecks={l.amountKopecks} />
            {l.reason ? ` — ${l.reason}` : ""}
          </li>
        ))}
      </ul>
    </>
  );
}

function Notice(props: { page: Page; notice: PayoutsNotice }) {
  const { page, notice } = props;
  const { t } = page;
  if (notice.kind === "refused") return <Alert kind="error" title={t.opsStatementRefused} items={notice.lines} />;
  if (notice.kind === "file") {
    return notice.batchId ? (
      <Alert kind="ok">
        {t.opsFileMade(notice.orders, notice.waiting, formatRubles(notice.totalKopecks, page.lang))} <a href={`/ops/payouts/batches/${notice.batchId}/file`}>{t.opsDownload}</a>
      </Alert>
    ) : (
      <Alert kind="warn">{t.opsNothingToSend(notice.waiting)}</Alert>
    );
  }
  const r = notice.report;
  return (
    <section class="card statement-report" aria-labelledby="report-title">
      <h2 id="report-title">{r.duplicate ? t.opsStatementDuplicate : t.opsStatementImported}</h2>
      <p>{t.opsStatementOf(r.account, formatDay(r.periodFrom, page.lang), formatDay(r.periodTo, page.lang), r.documents, r.notOurs)}</p>
      {r.duplicate ? (
        <p>
          {t.opsStatementImportedAt} <When page={page} at={r.importedAt} />
        </p>
      ) : null}
      <ReportLines page={page} title={t.payoutStatuses.PAID!} lines={r.paid} />
      <ReportLines page={page} title={t.payoutStatuses.RETURNED!} lines={r.returned} />
      <ReportLines page={page} title={t.payoutStatuses.FAILED!} lines={r.failed} />
      <ReportLines page={page} title={t.opsInProgress} lines={r.inProgress} />
      <ReportLines page={page} title={t.opsAlreadyApplied} lines={r.alreadyApplied} />
    </section>
  );
}

/**
 * The operators' payouts (docs/balance.md, "An operator's day"): what waits to be
 * sent, the exchange file for the bank and the files made, the bank's statement taken in, and what
 * waits for a statement line.
 */
export function OperatorPayoutsPage(props: { page: Page; pending: Loaded<Payout[]>; sent: Loaded<Payout[]>; batches: Loaded<PayoutBatch[]>; notice?: PayoutsNotice }) {
  const { page } = props;
  const { t } = page;
  return (
    <Layout page={page} title={t.opsPayoutsTitle}>
      <h1>{t.opsPayoutsTitle}</h1>
      {props.notice ? <Notice page={page} notice={props.notice} /> : null}
      <section class="card" aria-labelledby="pending-title">
        <h2 id="pending-title">{t.opsPending}</h2>
        {props.pending.ok ? <Payouts page={page} payouts={props.pending.value} empty={t.opsNonePending} /> : <Unavailable page={page} service={props.pending.service} />}
        <form method="post" action="/ops/payouts/export" class="stack">
          <CsrfField page={page} />
          <p class="muted">{t.opsExportHint}</p>
          <button type="submit" class="button primary">
            {t.opsExport}
          </button>
        </form>
      </section>
      <section class="card" aria-labelledby="statement-title">
        <h2 id="statement-title">{t.opsStatement}</h2>
        <form method="post" action="/ops/payouts/statement" enctype="multipart/form-data" class="stack">
          <CsrfField page={page} />
          <div class="field">
            <label for="f-statement">{t.opsStatementFile}</label>
            <input id="f-statement" name="statement" type="file" required />
            <p class="hint">{t.opsStatementHint}</p>
          </div>
          <button type="submit" class="button primary">
            {t.opsImport}
          </button>
        </form>
      </section>
      <section class="card" aria-labelledby="sent-title">
        <h2 id="sent-title">{t.opsSent}</h2>
        {props.sent.ok ? <Payouts page={page} payouts={props.sent.value} empty={t.opsNoneSent} sent /> : <Unavailable page={page} service={props.sent.service} />}
      </section>
      <section class="card" aria-labelledby="batches-title">
        <h2 id="batches-title">{t.opsBatches}</h2>
        {props.batches.ok && props.batches.value.length > 0 ? (
          <ul class="batches">
            {props.batches.value.map((b) => (
              <li>
                <When page={page} at={b.createdAt} /> — {t.opsBatchLine(b.orders, b.createdBy, formatRubles(b.totalKopecks, page.lang))} <a href={`/ops/payouts/batches/${b.id}/file`}>{t.opsDownload}</a>
              </li>
            ))}
          </ul>
        ) : props.batches.ok ? (
          <p class="muted">{t.opsNoBatches}</p>
        ) : (
          <Unavailable page={page} service={props.batches.service} />
        )}
      </section>
    </Layout>
  );
}
