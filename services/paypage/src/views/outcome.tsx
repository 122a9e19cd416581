import type { CheckoutView } from "@payaccept/contracts";
import { formatMoscowLong, savedMethodLabel } from "@payaccept/web-ui";
import { shortReference } from "../short-reference.ts";
import { returnHref } from "../return-link.ts";
import { ReturnLink, type PageContext } from "./layout.tsx";

type FinalScreen = "AUTHORIZED" | "SUCCESS" | "FAILED" | "EXPIRED" | "CANCELED" | "REFUNDED";

/**
 * What a buyer keeps from a success (or a hold): when it was paid (Moscow time), what to quote to
 * the shop, and the saved method it was charged to or saved as, named as the buyer knows it.
 */
function Receipt(props: { view: CheckoutView; page: PageContext }) {
  const { t, lang } = props.page;
  const { payment } = props.view;
  const saved = payment.paymentMethod;
  return (
    <dl class="receipt">
      {payment.paidAt ? (
        <>
          <dt>{t.paidAt}</dt>
          <dd>
            <time class="paid-at" datetime={payment.paidAt}>
              {formatMoscowLong(payment.paidAt, lang)}
            </time>
          </dd>
        </>
      ) : null}
      <dt>{t.reference}</dt>
      <dd>
        <span class="reference">{shortReference(payment.id)}</span>
        <span class="payment-id small muted" title={t.fullPaymentId}>
          {payment.id}
        </span>
      </dd>
      <dt>{t.order}</dt>
      <dd class="order">{payment.orderId}</dd>
      {payment.method ? (
        <>
          <dt>{t.paidWith}</dt>
          <dd>{payment.method === "SBP" ? t.methodNameSBP : t.methodCARD}</dd>
        </>
      ) : null}
      {saved ? (
        <>
          <dt>{payment.merchantInitiated ? t.chargedWith : t.savedFor(props.view.shopName)}</dt>
          <dd class="saved-method">{savedMethodLabel(saved, lang)}</dd>
        </>
      ) : null}
    </dl>
  );
}

/**
 * A CREATED payment of a shop that takes no payments now (deactivated by an operator): said at
 * once, with no method to press, rather than a choice whose every button is refused in silence.
 * Not final: should the shop be activated again, the same link works.
 */
export function NotAccepting(props: { view: CheckoutView; page: PageContext }) {
  const { t } = props.page;
  return (
    <section class="result" aria-labelledby="result-title" data-outcome="NOT_ACCEPTING">
      <p class="result-icon" aria-hidden="true">
        !
      </p>
      <h1 id="result-title">{t.notAcceptingTitle}</h1>
      <p role="status">{t.notAcceptingText}</p>
      <ReturnLink href={returnHref(props.view.failUrl)} page={props.page} />
    </section>
  );
}

/** The final screens. Success (and a later refund) return to successUrl; every other ending to failUrl. */
export function Outcome(props: { view: CheckoutView; status: FinalScreen; page: PageContext }) {
  const { t } = props.page;
  const copy = {
    AUTHORIZED: [t.heldTitle, t.heldText, "ok"],
    SUCCESS: [t.successTitle, t.successText, "ok"],
    REFUNDED: [t.refundedTitle, t.refundedText, "info"],
    FAILED: [t.failedTitle, t.failedText, "bad"],
    EXPIRED: [t.expiredTitle, t.expiredText, "bad"],
    CANCELED: [t.canceledTitle, t.canceledText, "bad"],
  } as const;
  const [title, text, tone] = copy[props.status];
  const link = props.status === "SUCCESS" || props.status === "REFUNDED" || props.status === "AUTHORIZED" ? props.view.successUrl : props.view.failUrl;
  return (
    <section class={`result ${tone}`} aria-labelledby="result-title" data-outcome={props.status}>
      <p class="result-icon" aria-hidden="true">
        {tone === "ok" ? "✓" : tone === "bad" ? "✕" : "↩"}
      </p>
      <h1 id="result-title">{title}</h1>
      <p role="status">{text}</p>
      {props.status === "SUCCESS" || props.status === "AUTHORIZED" ? <Receipt view={props.view} page={props.page} /> : null}
      {props.status === "SUCCESS" && props.view.receiptTo ? <p class="muted">{t.receiptSent(props.view.receiptTo)}</p> : null}
      {/* A late QR payment is the real bank's; a sandbox shows no QR, so it cannot happen there. */}
      {tone === "bad" && props.status !== "CANCELED" && props.view.payment.method === "SBP" && !props.view.sandbox ? <p class="muted">{t.lateQrHint}</p> : null}
      <ReturnLink href={returnHref(link)} page={props.page} />
    </section>
  );
}
