import type { FinalStatus, Payment, Receipt, Refund, ShopDetail, WebhookDelivery } from "@payaccept/contracts";
import { formatRubles } from "@payaccept/web-ui";
import type { Loaded } from "../backend.ts";
import { allows, type Page } from "../page.ts";
import { hundredthsInput } from "../amount-input.ts";
import { commissionState } from "../commission.ts";
import { Alert, CsrfField, Money, PaymentStatusOf, StatusBadge, TextField, Unavailable, When } from "./components.tsx";
import { DeliveryLog } from "./delivery-log.tsx";
import { MoneyMoves, type MoneyMove } from "./money-moves.tsx";
import { ReceiptsBlock } from "./receipts-block.tsx";
import { ShopFrame } from "./shop-frame.tsx";

/** Unicode's bidirectional controls (marks, embeddings, overrides, isolates). */
const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Indented metadata longer than this is shown compact: indenting a document nested 2,000 deep (4 KB
 * of brackets, within the limit) writes 8 MB of spaces.
 */
const INDENTED_MAX_CHARS = 64 * 1024;

/**
 * Metadata as indented JSON, with every bidi control written as its JSON escape: the same value,
 * but a U+202E in a string can no longer turn the rest of the line around and show quotes, keys or
 * values that are not there.
 */
function metadataShown(metadata: unknown): string {
  const indented = JSON.stringify(metadata, null, 2);
  const shown = indented.length <= INDENTED_MAX_CHARS ? indented : JSON.stringify(metadata);
  return shown.replace(BIDI_CONTROLS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** The commission with what became of it (commission.ts): not charged, returned with a refund… */
function Commission(props: { page: Page; payment: Payment }) {
  const { page, payment } = props;
  const { t } = page;
  const state = commissionState(payment);
  if (state === "notCharged") return <span class="muted">{t.commissionStates.notCharged}</span>;
  const money = <Money page={page} kopecks={payment.commissionKopecks} />;
  return state === "charged" ? money : <>{money} <span class="muted">{t.commissionStates[state]}</span></>;
}

function Fields(props: { page: Page; payment: Payment }) {
  const { page, payment: p } = props;
  const { t } = page;
  const f = t.fieldNames;
  const link = (url: string | null) => (url ? <span class="wrap">{url}</span> : t.shopLevelLink);
  const rows: [string, unknown][] = [
    [f.id!, <code>{p.id}</code>],
    [f.orderId!, p.orderId],
    [f.status!, <PaymentStatusOf page={page} payment={p} />],
    [f.amountKopecks!, <Money page={page} kopecks={p.amountKopecks} />],
    [f.refundedKopecks!, <Money page={page} kopecks={p.refundedKopecks} />],
    [f.commissionKopecks!, <Commission page={page} payment={p} />],
    [f.description!, p.description ?? t.none],
    [f.method!, p.method ? t.methodNames[p.method] : t.none],
    [f.telegramId!, p.telegramId ?? t.none],
    [f.metadata!, p.metadata === null ? t.none : <pre class="json">{metadataShown(p.metadata)}</pre>],
    [f.successUrl!, link(p.successUrl)],
    [f.failUrl!, link(p.failUrl)],
    [f.payUrl!, <a href={p.payUrl} rel="noopener noreferrer" class="wrap">{p.payUrl}</a>],
    [f.isTest!, p.isTest ? t.yes : t.no],
    [f.paidAt!, <When page={page} at={p.paidAt} />],
    [f.createdAt!, <When page={page} at={p.createdAt} />],
  ];
  return (
    <dl class="facts">
      {rows.map(([label, value]) => (
        <>
          <dt>{label}</dt>
          <dd>{value}</dd>
        </>
      ))}
    </dl>
  );
}

export type StatusEvent = { status: FinalStatus; at: string };

/** What happened to the payment and when: created, then each final status it reached. */
function History(props: { page: Page; payment: Payment; events: StatusEvent[] }) {
  const { page } = props;
  const { t } = page;
  const steps: { status: string; at: string }[] = [{ status: "CREATED", at: props.payment.createdAt }, ...props.events];
  return (
    <ol class="history">
      {steps.map((s) => (
        <li>
          <StatusBadge page={page} status={s.status} /> <When page={page} at={s.at} />
        </li>
      ))}
    </ol>
  );
}

const REFUND_TONE: Record<string, "ok" | "bad"> = { SUCCEEDED: "ok", FAILED: "bad" };

/** The payment's refunds, partial or full, oldest first: when, how much, how it ended and why. */
function Refunds(props: { page: Page; refunds: Refund[] }) {
  const { page } = props;
  const { t } = page;
  const moves = props.refunds.map((r): MoneyMove => ({
    at: r.completedAt ?? r.createdAt,
    amountKopecks: r.amountKopecks,
    tone: REFUND_TONE[r.status] ?? "neutral",
    status: t.refundStatuses[r.status] ?? r.status,
    notes: (
      <>
        {r.reason ? <span class="small muted block">{r.reason}</span> : null}
        {r.failureReason ? <span class="small error-text block">{r.failureReason}</span> : null}
      </>
    ),
  }));
  return <MoneyMoves page={page} class="refunds" timeLabel={t.refundedAt} moves={moves} empty={t.noRefunds} />;
}

/** One payment: every field of the spec's Payment, its history, refunds and fiscal receipts, its webhook deliveries, refund or cancel. */
export function PaymentPage(props: {
  page: Page;
  shop: ShopDetail;
  payment: Payment;
  deliveries: Loaded<WebhookDelivery[]>;
  history: Loaded<{ events: StatusEvent[]; refunds: Refund[] }>;
  receipts: Loaded<Receipt[]>;
  notice?: string;
}) {
  const { page, shop, payment } = props;
  const { t } = page;
  const base = `/shops/${shop.id}/payments/${payment.id}`;
  return (
    <ShopFrame page={page} shop={shop} tab="payments" title={t.paymentTitle(payment.orderId)}>
      <p class="crumbs">
        <a href={`/shops/${shop.id}/payments`}>{t.backToPayments}</a>
      </p>
      {props.notice ? <Alert kind="ok">{props.notice}</Alert> : null}
      <section class="card">
        <h2>{t.paymentTitle(payment.orderId)}</h2>
        <Fields page={page} payment={payment} />
        <div class="actions">
          {payment.status === "SUCCESS" && allows(page, "payments.refund") ? (
            <a class="button danger" href={`${base}/refund`}>
              {t.refund}
            </a>
          ) : null}
          {payment.status === "CREATED" && allows(page, "payments.refund") ? (
            <a class="button danger" href={`${base}/cancel`}>
              {t.cancel}
            </a>
          ) : null}
        </div>
      </section>
      {props.history.ok ? (
        <div class="pair">
          <section class="card" aria-labelledby="history-title">
            <h2 id="history-title">{t.historyTitle}</h2>
            <History page={page} payment={payment} events={props.history.value.events} />
          </section>
          <section class="card" aria-labelledby="refunds-title">
            <h2 id="refunds-title">{t.refundsTitle}</h2>
            <Refunds page={page} refunds={props.history.value.refunds} />
          </section>
        </div>
      ) : (
        <Unavailable page={page} service={props.history.service} />
      )}
      <section class="card" id="receipts">
        <h2>{t.paymentReceipts}</h2>
        {props.receipts.ok ? <ReceiptsBlock page={page} receipts={props.receipts.value} /> : <Unavailable page={page} service={props.receipts.service} />}
      </section>
      <section class="card">
        <h2>{t.paymentDeliveries}</h2>
        {props.deliveries.ok ? (
          <DeliveryLog page={page} shopId={shop.id} deliveries={props.deliveries.value} back={{ to: "payment" }} />
        ) : (
          <Unavailable page={page} service={props.deliveries.service} />
        )}
      </section>
    </ShopFrame>
  );
}

export type PaymentAction = "refund" | "cancel";

/** What the refund form holds: the amount as typed (rubles) and the key that makes a double submit refund once. */
export type RefundForm = { amount: string; idempotencyKey: string };

/**
 * The confirmation a refund or a cancellation asks for (no script needed); refusals are shown here.
 * A refund's amount starts at what is left to refund and may be lowered for a partial refund.
 */
export function ConfirmPaymentAction(props: { page: Page; shop: ShopDetail; payment: Payment; action: PaymentAction; refund?: RefundForm; errors?: string[] }) {
  const { page, shop, payment, action } = props;
  const { t } = page;
  const base = `/shops/${shop.id}/payments/${payment.id}`;
  const left = payment.amountKopecks - payment.refundedKopecks;
  const [title, text, button] =
    action === "refund"
      ? [t.refundConfirmTitle, t.refundConfirmText(formatRubles(left, page.lang), payment.orderId), t.refundConfirmButton]
      : [t.cancelConfirmTitle, t.cancelConfirmText(payment.orderId), t.cancelConfirmButton];
  return (
    <ShopFrame page={page} shop={shop} tab="payments" title={title}>
      <section class="card narrow">
        <h2>{title}</h2>
        {props.errors?.length ? <Alert kind="error" title={t.actionRefused} items={props.errors} /> : null}
        <p>{text}</p>
        <form method="post" action={`${base}/${action}`} class="actions">
          <CsrfField page={page} />
          {props.refund ? (
            <>
              <input type="hidden" name="idempotencyKey" value={props.refund.idempotencyKey} />
              <TextField
                name="amount"
                label={t.refundAmount}
                value={props.refund.amount || hundredthsInput(left, page.lang)}
                inputmode="decimal"
                required
                maxlength={20}
              />
            </>
          ) : null}
          <button type="submit" class="button danger">
            {button}
          </button>
          <a class="button plain" href={base}>
            {t.keepIt}
          </a>
        </form>
      </section>
    </ShopFrame>
  );
}
