import type { FinalStatus, Payment, Receipt, Refund, ShopDetail, WebhookDelivery } from "@payaccept/contracts";
import { formatMoscow, formatRubles, savedMethodLabel } from "@payaccept/web-ui";
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

/** The customer's saved methods page. */
export const methodsHref = (shopId: string, customerId: string) => `/shops/${shopId}/methods?customerId=${encodeURIComponent(customerId)}`;

function Fields(props: { page: Page; shopId: string; payment: Payment }) {
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
    ...extraRows(page, props.shopId, p),
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

/**
 * The fields of saved methods, charges and holds, only on a payment that uses them (the spec's
 * fields above stay as they are): who the buyer is, the method saved or charged (never a card
 * number), the hold and its deadline, why a charge failed.
 */
function extraRows(page: Page, shopId: string, p: Payment): [string, unknown][] {
  const x = page.t.paymentExtras;
  const rows: [string, unknown][] = [];
  if (p.customerId !== undefined) rows.push([x.customerId, <a href={methodsHref(shopId, p.customerId)}>{p.customerId}</a>]);
  if (p.paymentMethod) rows.push([x.paymentMethod, <span class="saved-method">{savedMethodLabel(p.paymentMethod, page.lang)}</span>]);
  else if (p.savePaymentMethod && p.status !== "CREATED" && p.status !== "PENDING") rows.push([x.savePaymentMethod, page.t.saveRefused]);
  if (p.merchantInitiated) rows.push([x.merchantInitiated, page.t.yes]);
  if (p.heldKopecks !== undefined) rows.push([x.heldKopecks, <Money page={page} kopecks={p.heldKopecks} />]);
  if (p.captureDeadline) rows.push([x.captureDeadline, <When page={page} at={p.captureDeadline} />]);
  if (p.failureReason) rows.push([x.failureReason, <span class="error-text">{p.failureReason}</span>]);
  return rows;
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
        <Fields page={page} shopId={shop.id} payment={payment} />
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
          {payment.status === "AUTHORIZED" && allows(page, "payments.refund") ? (
            <>
              <a class="button primary" href={`${base}/capture`}>
                {t.capture}
              </a>
              <a class="button danger" href={`${base}/cancel`}>
                {t.void}
              </a>
            </>
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

export type PaymentAction = "refund" | "cancel" | "capture";

/**
 * What an amount form (a refund, a capture) holds: the amount as typed (rubles) and the key that
 * makes a double submit refund once (a capture is idempotent by its amount and needs none).
 */
export type RefundForm = { amount: string; idempotencyKey: string };

/** The words of each confirmation, by action and, for a cancel, whether it releases a hold. */
function confirmation(page: Page, payment: Payment, action: PaymentAction): { title: string; text: string; button: string; amountLabel?: string; amount?: number } {
  const { t, lang } = page;
  const rub = (k: number) => formatRubles(k, lang);
  if (action === "refund") {
    const left = payment.amountKopecks - payment.refundedKopecks;
    return { title: t.refundConfirmTitle, text: t.refundConfirmText(rub(left), payment.orderId), button: t.refundConfirmButton, amountLabel: t.refundAmount, amount: left };
  }
  if (action === "capture") {
    const deadline = payment.captureDeadline ? formatMoscow(payment.captureDeadline, lang) : t.none;
    const text = t.captureConfirmText(rub(payment.amountKopecks), payment.orderId, deadline);
    return { title: t.captureConfirmTitle, text, button: t.captureConfirmButton, amountLabel: t.captureAmount, amount: payment.amountKopecks };
  }
  if (payment.status === "AUTHORIZED") return { title: t.voidConfirmTitle, text: t.voidConfirmText(rub(payment.amountKopecks), payment.orderId), button: t.voidConfirmButton };
  return { title: t.cancelConfirmTitle, text: t.cancelConfirmText(payment.orderId), button: t.cancelConfirmButton };
}

/**
 * The confirmation a refund, a capture or a cancellation (a hold's release) asks for (no script
 * needed); refusals are shown here. A refund's amount starts at what is left to refund, a
 * capture's at the hold, and either may be lowered.
 */
export function ConfirmPaymentAction(props: { page: Page; shop: ShopDetail; payment: Payment; action: PaymentAction; refund?: RefundForm; errors?: string[] }) {
  const { page, shop, payment, action } = props;
  const { t } = page;
  const base = `/shops/${shop.id}/payments/${payment.id}`;
  const { title, text, button, amountLabel, amount } = confirmation(page, payment, action);
  return (
    <ShopFrame page={page} shop={shop} tab="payments" title={title}>
      <section class="card narrow">
        <h2>{title}</h2>
        {props.errors?.length ? <Alert kind="error" title={t.actionRefused} items={props.errors} /> : null}
        <p>{text}</p>
        <form method="post" action={`${base}/${action}`} class="actions">
          <CsrfField page={page} />
          {props.refund && amountLabel && amount !== undefined ? (
            <>
              <input type="hidden" name="idempotencyKey" value={props.refund.idempotencyKey} />
              <TextField
                name="amount"
                label={amountLabel}
                value={props.refund.amount || hundredthsInput(amount, page.lang)}
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
