import { accountTail, type AccountDetailsView, type Balance, type Payout, type PayoutSchedule, type PayoutScheduleView } from "@payaccept/contracts";
import { moscowDay, releaseDayOf } from "@payaccept/domain";
import { formatDay, formatMoscow, formatRubles, type Lang } from "@payaccept/web-ui";
import { hundredthsInput } from "../amount-input.ts";
import type { Loaded } from "../backend.ts";
import { allows, type Page } from "../page.ts";
import { Alert, CsrfField, Money, SelectField, TextField, Unavailable } from "./components.tsx";
import { DetailsSummary } from "./details-page.tsx";
import { Layout } from "./layout.tsx";
import { MoneyMoves, type MoneyMove } from "./money-moves.tsx";

export type PayoutForm = { amount: string; idempotencyKey: string; errors: string[] };
/** The schedule's form as typed: off, daily or weekly; the weekday (1–7), a Moscow time and the minimum in rubles. */
export type ScheduleForm = { mode: string; weekday: string; time: string; minimum: string; errors: string[] };

/** The form filled with the schedule in force (or off). */
export const scheduleFormOf = (s: PayoutSchedule | null, lang: Lang): ScheduleForm => ({
  mode: s?.frequency ?? "off",
  weekday: String(s?.weekday ?? 5),
  time: s?.time ?? "10:00",
  minimum: s ? hundredthsInput(s.minimumKopecks, lang) : "0",
  errors: [],
});

/** The schedule in words, and the next payout's date. */
function ScheduleText(props: { page: Page; view: PayoutScheduleView }) {
  const { page, view } = props;
  const { t } = page;
  const s = view.schedule;
  if (!s) return <p class="schedule">{t.scheduleOff}</p>;
  return (
    <>
      <p class="schedule">{t.scheduleText(s.weekday === null ? t.everyDay : t.everyWeekday[s.weekday - 1]!, s.time, formatRubles(s.minimumKopecks, page.lang))}</p>
      {view.nextPayoutAt ? <p class="next-payout">{t.nextPayout(`${formatMoscow(view.nextPayoutAt, page.lang)}\u00A0${t.msk}`)}</p> : null}
    </>
  );
}

function Schedule(props: { page: Page; view: Loaded<PayoutScheduleView>; form: ScheduleForm }) {
  const { page, form } = props;
  const { t } = page;
  return (
    <section class="card" aria-labelledby="schedule-title">
      <h2 id="schedule-title">{t.scheduleTitle}</h2>
      {props.view.ok ? <ScheduleText page={page} view={props.view.value} /> : <Unavailable page={page} service={props.view.service} />}
      {allows(page, "payouts.schedule") ? (
        <form method="post" action="/balance/schedule" class="stack">
          <CsrfField page={page} />
          {form.errors.length ? <Alert kind="error" title={t.actionRefused} items={form.errors} /> : null}
          <SelectField name="mode" label={t.scheduleMode} value={form.mode} options={[["off", t.scheduleModes.off], ["daily", t.scheduleModes.daily], ["weekly", t.scheduleModes.weekly]]} />
          <SelectField name="weekday" label={t.scheduleWeekday} value={form.weekday} options={t.weekdays.map((d, i): [string, string] => [String(i + 1), d])} />
          <TextField name="time" label={t.scheduleTime} value={form.time} hint={t.scheduleTimeHint} maxlength={5} />
          <TextField name="minimum" label={t.scheduleMinimum} value={form.minimum} hint={t.scheduleMinimumHint} inputmode="decimal" maxlength={20} />
          <button type="submit" class="button primary">
            {t.scheduleSave}
          </button>
        </form>
      ) : null}
    </section>
  );
}

function Figures(props: { page: Page; balance: Balance; now: number }) {
  const { page, balance } = props;
  const { t } = page;
  const today = moscowDay(props.now);
  return (
    <>
      <dl class="figures">
        <div>
          <dt>{t.available}</dt>
          <dd class="available">
            <Money page={page} kopecks={balance.availableKopecks} />
          </dd>
        </div>
        <div>
          <dt>{t.frozen}</dt>
          <dd class="frozen">
            <Money page={page} kopecks={balance.frozenKopecks} />
          </dd>
        </div>
      </dl>
      <p class="hold-rule">{t.holdRule(balance.holdHour)}</p>
      <p class="muted">{t.holdExample(formatDay(today, page.lang), formatDay(releaseDayOf(today), page.lang), balance.holdHour)}</p>
      <p class="muted small">{t.balanceAccount}</p>
    </>
  );
}

const PAYOUT_TONE: Record<Payout["status"], MoneyMove["tone"]> = { PENDING: "neutral", SENT: "neutral", PAID: "ok", FAILED: "bad", RETURNED: "bad" };

/** Payouts with what an accountant looks for: the payment order (number, date, account, reference), a refusal's reason, the schedule's. */
function Payouts(props: { page: Page; payouts: Payout[] }) {
  const { page } = props;
  const { t } = page;
  const moves = props.payouts.map((p): MoneyMove => ({
    at: p.createdAt,
    amountKopecks: p.amountKopecks,
    tone: PAYOUT_TONE[p.status],
    status: t.payoutStatuses[p.status] ?? p.status,
    notes: (
      <>
        {p.scheduled ? <span class="small muted block">{t.payoutScheduled}</span> : null}
        {p.order ? <span class="small muted block payout-order">{t.payoutOrder(p.order.number, formatDay(p.order.date, page.lang), accountTail(p.order.account), p.order.reference)}</span> : null}
        {p.status === "FAILED" || p.status === "RETURNED" ? <span class="small block payout-back">{t.payoutBack(p.failureReason)}</span> : null}
      </>
    ),
  }));
  return <MoneyMoves page={page} class="payouts" timeLabel={t.created} moves={moves} empty={t.noPayouts} />;
}

/** The account's balance (the figures of GET /v1/balance), the hold in words, payouts. */
export function BalancePage(props: {
  page: Page;
  balance: Loaded<Balance>;
  payouts: Loaded<Payout[]>;
  details: Loaded<AccountDetailsView>;
  schedule: Loaded<PayoutScheduleView>;
  scheduleForm: ScheduleForm;
  form: PayoutForm;
  notice?: string;
  now: number;
}) {
  const { page, form } = props;
  const { t } = page;
  return (
    <Layout page={page} title={t.balanceTitle}>
      <h1>{t.balanceTitle}</h1>
      {props.notice ? <Alert kind="ok">{props.notice}</Alert> : null}
      <section class="card">{props.balance.ok ? <Figures page={page} balance={props.balance.value} now={props.now} /> : <Unavailable page={page} service={props.balance.service} />}</section>
      {allows(page, "details.view") ? (
        <section class="card" aria-labelledby="details-title">
          <h2 id="details-title">{t.detailsTitle}</h2>
          <DetailsSummary page={page} view={props.details} />
        </section>
      ) : null}
      {allows(page, "payouts.create") && props.details.ok && props.details.value.details === null ? (
        <section class="card" aria-labelledby="payout-title">
          <h2 id="payout-title">{t.payoutTitle}</h2>
          <p>{t.payoutNeedsDetails}</p>
        </section>
      ) : allows(page, "payouts.create") ? (
      <section class="card" aria-labelledby="payout-title">
        <h2 id="payout-title">{t.payoutTitle}</h2>
        {form.errors.length ? <Alert kind="error" title={t.actionRefused} items={form.errors} /> : null}
        <form method="post" action="/balance/payouts" class="stack">
          <CsrfField page={page} />
          <input type="hidden" name="idempotencyKey" value={form.idempotencyKey} />
          <TextField
            name="amount"
            label={t.payoutAmount}
            value={form.amount}
            inputmode="decimal"
            required
            hint={props.balance.ok ? t.payoutHint(formatRubles(props.balance.value.availableKopecks, page.lang)) : undefined}
            maxlength={20}
          />
          <button type="submit" class="button primary">
            {t.payoutButton}
          </button>
        </form>
      </section>
      ) : null}
      <Schedule page={page} view={props.schedule} form={props.scheduleForm} />
      <section class="card">
        <h2>{t.payoutsTitle}</h2>
        {props.payouts.ok ? <Payouts page={page} payouts={props.payouts.value} /> : <Unavailable page={page} service={props.payouts.service} />}
      </section>
    </Layout>
  );
}
