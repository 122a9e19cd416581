import type { CheckoutView, PaymentMethod } from "@payaccept/contracts";
import type { PageContext } from "./layout.tsx";

/** The form field that carries the buyer's consent to `start` (routes/pay.tsx). */
export const SAVE_FIELD = "saveMethod";
export const SAVE_AGREED = "yes";

/**
 * The buyer's consent to save the method, asked when the merchant wants it saved
 * (savePaymentMethod): what is kept (a card's network and last digits, or an SBP account binding
 * confirmed in the bank app), by which shop, what for, and how to withdraw it. Under the shop's
 * ALWAYS it is a condition of the payment, stated, and paying is agreeing; under BUYER_CHOICE an
 * unticked box, and paying without it saves nothing. Rendered inside the form of the methods it
 * speaks of, so the answer goes with the start.
 */
export function SaveConsent(props: { view: CheckoutView; page: PageContext; methods: PaymentMethod[] }) {
  const ask = props.view.saveMethod;
  if (!ask) return null;
  const { t } = props.page;
  const shop = props.view.shopName;
  return (
    <fieldset class="save-consent" data-consent={ask.consent}>
      <legend>{t.saveTitle}</legend>
      <p>{t.saveWhy(shop)}</p>
      <ul>
        {props.methods.includes("CARD") ? <li>{t.saveWhatCard}</li> : null}
        {props.methods.includes("SBP") ? <li>{t.saveWhatSbp}</li> : null}
      </ul>
      <p class="small">{t.saveRevoke}</p>
      {ask.consent === "ALWAYS" ? (
        <>
          <input type="hidden" name={SAVE_FIELD} value={SAVE_AGREED} />
          <p class="save-condition">
            <strong>{t.saveAlways}</strong>
          </p>
        </>
      ) : (
        <>
          <label class="check">
            <input type="checkbox" name={SAVE_FIELD} value={SAVE_AGREED} aria-describedby="save-optional" />
            <span>{t.saveChoice(shop)}</span>
          </label>
          <p id="save-optional" class="muted small">
            {t.saveOptional}
          </p>
        </>
      )}
    </fieldset>
  );
}
