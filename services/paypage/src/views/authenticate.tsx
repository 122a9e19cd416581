import type { CheckoutView } from "@payaccept/contracts";
import { formatRubles, savedMethodLabel } from "@payaccept/web-ui";
import type { PageContext } from "./layout.tsx";
import { Countdown, SandboxPanel } from "./pending.tsx";

/**
 * A merchant-initiated charge the bank wants the buyer to confirm (FAILED with
 * AUTHENTICATION_REQUIRED): who charges how much to which saved method, and the way to the bank's
 * confirmation, until its deadline. A sandbox has no bank: the tester passes it with the outcome
 * picker, as a sandbox payment is paid.
 */
export function Authenticate(props: { view: CheckoutView; authentication: NonNullable<CheckoutView["authentication"]>; page: PageContext; csrf: string; now: number }) {
  const { view, page } = props;
  const { t, lang } = page;
  const method = view.payment.paymentMethod;
  return (
    <>
      <section aria-labelledby="auth-title" data-outcome="AUTHENTICATION_REQUIRED">
        <h1 id="auth-title">{t.authTitle}</h1>
        <p role="status">{t.authText(view.shopName, formatRubles(view.payment.amountKopecks, lang))}</p>
        {method ? <p class="saved-method">{savedMethodLabel(method, lang)}</p> : null}
        <Countdown expiresAt={props.authentication.expiresAt} now={props.now} page={page} label={t.authTimeLeft} />
        {view.sandbox ? (
          <p class="muted">{t.authSandbox}</p>
        ) : (
          <a class="button primary" href={props.authentication.url} rel="noopener noreferrer">
            {t.authGo}
          </a>
        )}
      </section>
      {view.sandbox ? <SandboxPanel paymentId={view.payment.id} csrf={props.csrf} page={page} outcomes={["SUCCESS"]} /> : null}
    </>
  );
}
