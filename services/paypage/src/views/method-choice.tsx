import type { CheckoutView, PaymentMethod } from "@payaccept/contracts";
import type { PageContext } from "./layout.tsx";
import { MethodMarks } from "./marks.tsx";
import { SaveConsent } from "./save-consent.tsx";

/**
 * Starting to pay. With several methods the buyer picks one; with only one (fixed by the merchant,
 * or the only one the shop has) the form starts by itself once the script runs, and a plain button
 * remains for browsers without JS. A GET never starts a payment: link previews must not. A payment
 * that asks to save the method never starts by itself: the buyer reads the consent first.
 */
export function MethodChoice(props: { view: CheckoutView; page: PageContext; csrf: string }) {
  const { t } = props.page;
  const methods = props.view.methods;
  if (methods.length === 0) return <p role="alert">{t.noMethods}</p>;
  const single = methods.length === 1;
  const autostart = single && !props.view.saveMethod;
  const label = (m: PaymentMethod) => (single ? (m === "SBP" ? t.continueSBP : t.continueCARD) : m === "SBP" ? t.methodSBP : t.methodCARD);
  return (
    <section aria-labelledby="choice-title">
      <h1 id="choice-title">{single ? t.pageTitle : t.chooseMethod}</h1>
      <form method="post" action={`/pay/${props.view.payment.id}/start`} class="methods" data-autostart={autostart ? "" : undefined}>
        <input type="hidden" name="csrf" value={props.csrf} />
        {props.view.payment.capture === false ? <p class="hold-note">{t.holdNote}</p> : null}
        <SaveConsent view={props.view} page={props.page} methods={methods} />
        {methods.map((m) => (
          <button type="submit" name="method" value={m} class={`button method method-${m.toLowerCase()}`}>
            <span class="method-label">{label(m)}</span>
            <MethodMarks method={m} />
          </button>
        ))}
      </form>
    </section>
  );
}
