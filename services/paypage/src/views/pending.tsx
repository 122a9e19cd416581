import { raw } from "hono/html";
import type { z } from "zod";
import { CARD_FORM_FIELDS as F, SandboxOutcome, type CheckoutView, type PaymentMethod } from "@payaccept/contracts";
import { formatRemaining } from "../countdown.ts";
import { formatRubles } from "@payaccept/web-ui";
import type { PageContext } from "./layout.tsx";
import { MethodMarks } from "./marks.tsx";
import { SaveConsent } from "./save-consent.tsx";

export function Countdown(props: { expiresAt: string | null; now: number; page: PageContext; label?: string }) {
  if (!props.expiresAt) return null;
  return (
    <p class="countdown" role="timer">
      {props.label ?? props.page.t.timeLeft}{" "}
      <time datetime={props.expiresAt} data-expires-at={props.expiresAt}>
        {formatRemaining(Date.parse(props.expiresAt) - props.now)}
      </time>
    </p>
  );
}

/** An SBP account binding is consented to in the bank app itself: the page says what it will ask. */
function SbpPanel(props: { sbp: NonNullable<CheckoutView["sbp"]>; qrSvg: string; page: PageContext; bindShop: string | null }) {
  const { t } = props.page;
  return (
    <div class="sbp">
      <p>{t.sbpScan}</p>
      {props.bindShop ? <p class="bind-note">{t.saveSbpInApp(props.bindShop)}</p> : null}
      <figure class="qr" role="img" aria-label={t.sbpQrLabel} data-qr-payload={props.sbp.qrPayload}>
        {raw(props.qrSvg)}
      </figure>
      {/* Shown on phones and tablets only (pay.css): on a desktop there is no bank app to open. */}
      <a class="button primary deeplink" href={props.sbp.deepLink} rel="noopener">
        {t.sbpOpenApp}
      </a>
      <p class="muted" role="status">
        {t.sbpWaiting}
      </p>
    </div>
  );
}

type FieldProps = { id: "pan" | "exp" | "cvc"; label: string; error: string } & Record<string, string | number | boolean>;

/** A card field with its label and the error text the script reveals when the value is wrong. */
function CardField({ id, label, error, ...input }: FieldProps) {
  return (
    <div class={`field field-${id}`}>
      <label for={id}>{label}</label>
      <input id={id} name={F[id]} type="text" inputmode="numeric" required aria-describedby={`${id}-error`} {...input} />
      <p id={`${id}-error`} class="field-error" hidden>
        {error}
      </p>
    </div>
  );
}

/**
 * The card form posts straight to the acquirer (its action is the provider's URL): card data never
 * reaches our server. Error texts are rendered hidden for the script's Luhn and format checks.
 */
function CardPanel(props: { card: NonNullable<CheckoutView["card"]>; amountKopecks: number; page: PageContext }) {
  const { t, lang } = props.page;
  return (
    <form method="post" action={props.card.formAction} class="card-form" data-card-form="" autocomplete="on">
      <p class="accepted">
        <MethodMarks method="CARD" />
      </p>
      <CardField id="pan" label={t.cardNumber} error={t.cardBadNumber} autocomplete="cc-number" maxlength={23} pattern="[0-9 \-]{12,23}" placeholder="0000 0000 0000 0000" />
      <div class="row">
        <CardField
          id="exp"
          label={t.cardExpiry}
          error={t.cardBadExpiry}
          autocomplete="cc-exp"
          maxlength={7}
          pattern="(0[1-9]|1[0-2]) ?/ ?[0-9]{2}"
          placeholder={t.cardExpiryPlaceholder}
        />
        <CardField id="cvc" label={t.cardCvc} error={t.cardBadCvc} autocomplete="cc-csc" maxlength={4} pattern="[0-9]{3,4}" />
      </div>
      <label for="holder">{t.cardHolder}</label>
      <input id="holder" name={F.holder} type="text" autocomplete="cc-name" maxlength={100} autocapitalize="characters" spellcheck={false} />
      <button type="submit" class="button primary">
        {t.cardPay} {formatRubles(props.amountKopecks, lang)}
      </button>
      <p class="muted small">{t.cardNote}</p>
    </form>
  );
}

/**
 * A card session whose acquirer shows its own payment page (T-Bank's PaymentURL): the buyer goes
 * there to enter the card and comes back to payUrl; the card never reaches our pages at all.
 */
function HostedCardPanel(props: { card: NonNullable<CheckoutView["card"]>; amountKopecks: number; page: PageContext }) {
  const { t, lang } = props.page;
  return (
    <div class="card-form hosted">
      <p class="accepted">
        <MethodMarks method="CARD" />
      </p>
      <a class="button primary" href={props.card.formAction} rel="noopener">
        {t.cardOnBankPage} {formatRubles(props.amountKopecks, lang)}
      </a>
      <p class="muted small">{t.cardOnBankPageNote}</p>
    </div>
  );
}

/** The tester's pick of an outcome; `outcomes` narrows it (a charge's authentication can only be passed). */
export function SandboxPanel(props: { paymentId: string; csrf: string; page: PageContext; outcomes?: readonly z.infer<typeof SandboxOutcome>[] }) {
  const { t } = props.page;
  const label = { SUCCESS: t.sandboxSUCCESS, FAILED: t.sandboxFAILED, EXPIRED: t.sandboxEXPIRED };
  return (
    <section class="sandbox" aria-labelledby="sandbox-title">
      <h2 id="sandbox-title">{t.sandboxTitle}</h2>
      <p>{t.sandboxText}</p>
      <form method="post" action={`/pay/${props.paymentId}/sandbox`} class="outcomes">
        <input type="hidden" name="csrf" value={props.csrf} />
        {(props.outcomes ?? SandboxOutcome.options).map((outcome) => (
          <button type="submit" name="outcome" value={outcome} class="button">
            {label[outcome]}
          </button>
        ))}
      </form>
    </section>
  );
}

/**
 * Paying another way before paying: a start with the other method, which payments turns into a
 * switch (the current provider session is canceled first). Not offered for a merchant-fixed method.
 */
function SwitchMethod(props: { view: CheckoutView; page: PageContext; csrf: string }) {
  const { t } = props.page;
  const others = props.view.methods.filter((m) => m !== props.view.payment.method);
  if (others.length === 0) return null;
  const label = (m: PaymentMethod) => (m === "SBP" ? t.switchToSBP : t.switchToCARD);
  return (
    <section class="switch" aria-labelledby="switch-title">
      <h2 id="switch-title">{t.switchTitle}</h2>
      <form method="post" action={`/pay/${props.view.payment.id}/start`}>
        <input type="hidden" name="csrf" value={props.csrf} />
        <SaveConsent view={props.view} page={props.page} methods={others} />
        {others.map((m) => (
          <button type="submit" name="method" value={m} class={`button method method-${m.toLowerCase()}`}>
            <span class="method-label">{label(m)}</span>
            <MethodMarks method={m} />
          </button>
        ))}
      </form>
      <p class="muted small">{t.switchHint}</p>
    </section>
  );
}

/** PENDING: the method's screen (QR or card form), the time left, and in a sandbox the outcome picker. */
export function Pending(props: { view: CheckoutView; page: PageContext; csrf: string; qrSvg: string | null; now: number }) {
  const { view, page } = props;
  const { t } = page;
  const title = view.payment.method === "SBP" ? t.sbpTitle : view.payment.method === "CARD" ? t.cardTitle : t.waitingTitle;
  // A sandbox payment has no provider session: its outcome is picked below instead.
  const waiting = !view.sbp && !view.card && !view.sandbox;
  return (
    <>
      <section aria-labelledby="pending-title">
        <h1 id="pending-title">
          {title}
          {view.payment.method === "SBP" ? <MethodMarks method="SBP" /> : null}
        </h1>
        <Countdown expiresAt={view.expiresAt} now={props.now} page={page} />
        {view.sbp && props.qrSvg ? <SbpPanel sbp={view.sbp} qrSvg={props.qrSvg} page={page} bindShop={view.saveMethod ? view.shopName : null} /> : null}
        {view.card ? (
          view.card.hosted ? (
            <HostedCardPanel card={view.card} amountKopecks={view.payment.amountKopecks} page={page} />
          ) : (
            <CardPanel card={view.card} amountKopecks={view.payment.amountKopecks} page={page} />
          )
        ) : null}
        {waiting ? (
          <p class="muted" role="status">
            {t.waitingText}
          </p>
        ) : null}
      </section>
      {view.sandbox ? <SandboxPanel paymentId={view.payment.id} csrf={props.csrf} page={page} /> : null}
      <SwitchMethod view={view} page={page} csrf={props.csrf} />
    </>
  );
}
