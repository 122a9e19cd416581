import type { ShopDetail } from "@payaccept/contracts";
import { formatDay, formatRubles } from "@payaccept/web-ui";
import type { Loaded } from "../backend.ts";
import { percent, type HealthFigures, type OverviewFigures } from "../overview/figures.ts";
import { MAX_PERIOD_DAYS, type OverviewQuery, type PeriodProblem } from "../overview/period.ts";
import type { OverviewScope } from "../overview/scope.ts";
import type { Child } from "hono/jsx";
import { allows, type Page } from "../page.ts";
import { BarChart, ShareBar, type Bar } from "./charts.tsx";
import { Alert, Badge, failureSaid, MerchantText, Money, SelectField, TextField, Unavailable } from "./components.tsx";
import { Layout } from "./layout.tsx";

export type OverviewData =
  | { kind: "invalid"; problems: PeriodProblem[] }
  | { kind: "figures"; payments: Loaded<OverviewFigures>; health: Loaded<HealthFigures> };

type Props = { page: Page; shops: ShopDetail[]; scope: OverviewScope; query: OverviewQuery; presets: { days: number; from: string; to: string }[]; data: OverviewData };

/** Day labels under a chart: the first, the middle and the last day of the period. */
const axisOf = (page: Page, days: string[]) => [...new Set([days[0]!, days[Math.floor((days.length - 1) / 2)]!, days.at(-1)!])].map((d) => formatDay(d, page.lang).slice(0, page.lang === "ru" ? 5 : 10));

function Figures(props: { page: Page; f: OverviewFigures }) {
  const { page, f } = props;
  const { t } = page;
  const average = f.paid.count === 0 ? 0 : Math.round(f.paid.sumKopecks / f.paid.count);
  return (
    <dl class="figures four">
      <div>
        <dt>{t.turnover}</dt>
        <dd id="kpi-turnover">
          <Money page={page} kopecks={f.paid.sumKopecks} />
        </dd>
      </div>
      <div>
        <dt>{t.paidCount}</dt>
        <dd id="kpi-paid">{f.paid.count}</dd>
        <p class="muted small">{t.ofCreated(f.created)}</p>
      </div>
      <div>
        <dt>{t.averagePayment}</dt>
        <dd id="kpi-average">
          <Money page={page} kopecks={average} />
        </dd>
      </div>
      <div>
        <dt>{t.refundsTitle}</dt>
        <dd id="kpi-refunds">
          <Money page={page} kopecks={f.refunds.sumKopecks} />
        </dd>
        <p class="muted small">{t.refundsCount(f.refunds.count)}</p>
      </div>
      {f.held.count > 0 ? (
        <div>
          <dt>{t.overviewHeld}</dt>
          <dd id="kpi-held">{f.held.count}</dd>
          <p class="muted small">{t.overviewHeldNote(formatRubles(f.held.sumKopecks, page.lang))}</p>
        </div>
      ) : null}
    </dl>
  );
}

function DailyCharts(props: { page: Page; f: OverviewFigures }) {
  const { page, f } = props;
  const { t } = page;
  const day = (d: string) => formatDay(d, page.lang);
  const axis = axisOf(page, f.days.map((d) => d.day));
  const maxSum = Math.max(0, ...f.days.map((d) => d.sumKopecks));
  const maxCount = Math.max(0, ...f.days.map((d) => d.count));
  const sumBars: Bar[] = f.days.map((d) => ({ key: d.day, value: d.sumKopecks, title: `${day(d.day)}: ${formatRubles(d.sumKopecks, page.lang)}` }));
  const countBars: Bar[] = f.days.map((d) => ({ key: d.day, value: d.count, title: `${day(d.day)}: ${t.paymentsCount(d.count)}` }));
  return (
    <div class="charts">
      <BarChart id="chart-turnover" caption={t.turnoverByDay} bars={sumBars} maxLabel={t.chartMax(formatRubles(maxSum, page.lang))} axis={axis} />
      <BarChart id="chart-count" caption={t.paidByDay} bars={countBars} maxLabel={t.chartMax(String(maxCount))} axis={axis} />
      <details class="by-day">
        <summary>{t.figuresByDay}</summary>
        <table>
          <thead>
            <tr>
              <th scope="col">{t.day}</th>
              <th scope="col" class="num">
                {t.paidCount}
              </th>
              <th scope="col" class="num">
                {t.turnover}
              </th>
            </tr>
          </thead>
          <tbody>
            {f.days
              .filter((d) => d.count > 0)
              .map((d) => (
                <tr>
                  <td data-label={t.day}>{day(d.day)}</td>
                  <td data-label={t.paidCount} class="num">
                    {d.count}
                  </td>
                  <td data-label={t.turnover} class="num">
                    <Money page={page} kopecks={d.sumKopecks} />
                  </td>
                </tr>
              ))}
          </tbody>
        </table>
      </details>
    </div>
  );
}

function MethodRates(props: { page: Page; f: OverviewFigures }) {
  const { page } = props;
  const { t } = page;
  return (
    <section class="card" aria-labelledby="rates-title">
      <h2 id="rates-title">{t.successByMethod}</h2>
      {props.f.methods.map((m) => {
        const share = percent(m.paid, m.decided);
        return <ShareBar page={page} label={t.methodNames[m.method]!} share={share} detail={share === undefined ? t.noAttempts : t.shareOf(share, m.paid, m.decided)} />;
      })}
      <p class="hint">{t.successRateNote}</p>
    </section>
  );
}

/** A shop's webhook tab, linked for the roles that may open it (access.ts); the name alone for the others. */
const WebhookLink = (props: { page: Page; href: string; children: Child }) => (allows(props.page, "webhook.view") ? <a href={props.href}>{props.children}</a> : <>{props.children}</>);

function Health(props: { page: Page; h: HealthFigures; shops: ShopDetail[] }) {
  const { page, h } = props;
  const { t } = page;
  const share = percent(h.firstAttempt, h.firstSent);
  const shopById = new Map(props.shops.map((s) => [s.id, s]));
  return (
    <>
      {share === undefined ? (
        <p class="muted">{t.noDeliveriesInPeriod}</p>
      ) : (
        <ShareBar page={page} label={t.firstAttemptShare} share={share} detail={t.shareOf(share, h.firstAttempt, h.firstSent)} tone={share >= 95 ? "ok" : "bad"} />
      )}
      {h.unsent.length > 0 ? (
        <p class="hint unsent">
          {t.unsentForWantOfUrl}{" "}
          {h.unsent.map((s, i) => (
            <>
              {i > 0 ? ", " : null}
              <WebhookLink page={page} href={`/shops/${s.shopId}/webhook`}>
                {shopById.get(s.shopId) ? <MerchantText text={shopById.get(s.shopId)!.name} /> : s.shopId}
              </WebhookLink>{" "}
              — {t.eventsCount(s.unsent)}
            </>
          ))}
        </p>
      ) : null}
      <h3>{t.failingEndpoints}</h3>
      {h.failing.length === 0 ? (
        <p class="muted">{t.noFailingEndpoints}</p>
      ) : (
        <table class="failing">
          <thead>
            <tr>
              <th scope="col">{t.tabShop}</th>
              <th scope="col">{t.webhookUrl}</th>
              <th scope="col" class="num">
                {t.failedDeliveries}
              </th>
              <th scope="col" class="num">
                {t.retryingDeliveries}
              </th>
              <th scope="col">{t.lastError}</th>
            </tr>
          </thead>
          <tbody>
            {h.failing.map((s) => {
              const shop = shopById.get(s.shopId);
              return (
                <tr>
                  <td data-label={t.tabShop}>
                    <WebhookLink page={page} href={`/shops/${s.shopId}/webhook?failed=1`}>
                      {shop ? <MerchantText text={shop.name} /> : s.shopId}
                    </WebhookLink>
                  </td>
                  <td data-label={t.webhookUrl} class="wrap">
                    {shop?.webhookUrl ?? t.none}
                  </td>
                  <td data-label={t.failedDeliveries} class="num">
                    {s.failed}
                  </td>
                  <td data-label={t.retryingDeliveries} class="num">
                    {s.retrying}
                  </td>
                  <td data-label={t.lastError} class="error-text wrap">
                    {s.lastErrorCode ? failureSaid(page, s.lastErrorCode, s.lastErrorParams) : t.none}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </>
  );
}

function Filters(props: Props) {
  const { page, query } = props;
  const { t } = page;
  const shopParam = query.shopId ? `&shop=${encodeURIComponent(query.shopId)}` : "";
  return (
    <form method="get" action="/overview" class="filters overview-filters">
      <SelectField
        name="shop"
        label={t.overviewShop}
        value={query.shopId}
        options={[["", props.scope.liveOnly ? t.allLiveShops : t.allShops], ...props.shops.map((s): [string, string] => [s.id, s.name])]}
      />
      <TextField name="from" type="date" label={t.periodFrom} value={query.from} />
      <TextField name="to" type="date" label={t.periodTo} value={query.to} />
      <div class="actions">
        <button type="submit" class="button primary">
          {t.applyFilters}
        </button>
        {props.presets.map((p) => (
          <a class="button plain" href={`/overview?from=${p.from}&to=${p.to}${shopParam}`} aria-current={p.from === query.from && p.to === query.to ? "true" : undefined}>
            {t.lastDays(p.days)}
          </a>
        ))}
      </div>
    </form>
  );
}

/** The landing page: how the period went, for one shop or the whole account. */
export function OverviewPage(props: Props) {
  const { page, data } = props;
  const { t } = page;
  if (props.shops.length === 0) {
    return (
      <Layout page={page} title={t.overviewTitle}>
        <h1>{t.overviewTitle}</h1>
        <section class="card">
          <p>{t.overviewNoShops}</p>
          <a class="button primary" href="/shops">
            {t.createShopTitle}
          </a>
        </section>
      </Layout>
    );
  }
  return (
    <Layout page={page} title={t.overviewTitle}>
      <h1>{t.overviewTitle}</h1>
      <section class="card">
        <Filters {...props} />
      </section>
      {data.kind === "invalid" ? (
        <Alert kind="error" items={data.problems.map((p) => (p === "periodTooLong" ? t.periodTooLong(MAX_PERIOD_DAYS) : t[p]))} />
      ) : (
        <>
          <section class="card" aria-labelledby="payments-title">
            <h2 id="payments-title">{t.overviewPayments(formatDay(props.query.from, page.lang), formatDay(props.query.to, page.lang))}</h2>
            {props.scope.sandbox ? (
              <p class="sandbox-note">
                <Badge tone="test">{t.sandbox}</Badge> {t.overviewSandboxNote}
              </p>
            ) : null}
            {data.payments.ok ? (
              <>
                <Figures page={page} f={data.payments.value} />
                <DailyCharts page={page} f={data.payments.value} />
              </>
            ) : (
              <Unavailable page={page} service={data.payments.service} />
            )}
            <p class="hint">{t.periodNote}</p>
          </section>
          {data.payments.ok ? <MethodRates page={page} f={data.payments.value} /> : null}
          <section class="card" aria-labelledby="health-title">
            <h2 id="health-title">{t.webhookHealth}</h2>
            {data.health.ok ? <Health page={page} h={data.health.value} shops={props.shops} /> : <Unavailable page={page} service={data.health.service} />}
          </section>
        </>
      )}
    </Layout>
  );
}
