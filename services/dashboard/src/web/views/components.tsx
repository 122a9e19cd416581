import type { Child } from "hono/jsx";
import type { Payment, Reason } from "@payaccept/contracts";
import { describeReason, formatRubles, serviceName } from "@payaccept/web-ui";
import { formatMoscow } from "@payaccept/web-ui";
import type { Action } from "../access.ts";
import { allows, type Page } from "../page.ts";

/** The hidden token every form carries (checked on every POST). */
export const CsrfField = (props: { page: Page }) => <input type="hidden" name="csrf" value={props.page.csrf} />;

export function Alert(props: { kind: "ok" | "error" | "warn"; title?: string; items?: string[]; children?: Child }) {
  return (
    <div class={`alert ${props.kind}`} role={props.kind === "ok" ? "status" : "alert"}>
      {props.title ? <p class="alert-title">{props.title}</p> : null}
      {props.children}
      {props.items && props.items.length > 0 ? (
        <ul>
          {props.items.map((item) => (
            <li>{item}</li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

/**
 * Text a merchant typed (a shop's name): isolated from the words around it (`bdi`), so a
 * right-to-left override in it cannot reorder ours (an operator reading «…» must see the name as
 * stored, not a spoof), and breakable anywhere, so 100 characters without a space never widen the page.
 */
export const MerchantText = (props: { text: string }) => <bdi class="wrap">{props.text}</bdi>;

/** A service that did not answer: said in place of the part it would have filled. */
export function Unavailable(props: { page: Page; service: string }) {
  const { t } = props.page;
  return <Alert kind="warn">{t.unavailableInline(serviceName(props.page.lang, props.service))}</Alert>;
}

/** A stored failure (a delivery's error) in the page's language, from its code and parameters. */
export const failureSaid = (page: Page, code: Reason, params: Record<string, unknown> | null) => describeReason(page.lang, code, params ?? {}).join(" ");

export function TextField(props: {
  name: string;
  label: string;
  value?: string | null;
  type?: string;
  hint?: string;
  required?: boolean;
  autocomplete?: string;
  placeholder?: string;
  inputmode?: "decimal" | "email" | "url" | "numeric" | "text";
  maxlength?: number;
  readonly?: boolean;
  /** What is wrong with the value, said next to the field. */
  error?: string;
}) {
  const id = `f-${props.name}`;
  const describedBy = [props.error ? `${id}-error` : undefined, props.hint ? `${id}-hint` : undefined].filter(Boolean).join(" ");
  return (
    <div class={props.error ? "field invalid" : "field"}>
      <label for={id}>{props.label}</label>
      <input
        id={id}
        name={props.name}
        type={props.type ?? "text"}
        value={props.value ?? ""}
        required={props.required}
        autocomplete={props.autocomplete}
        placeholder={props.placeholder}
        inputmode={props.inputmode}
        maxlength={props.maxlength}
        readonly={props.readonly}
        aria-invalid={props.error ? "true" : undefined}
        aria-describedby={describedBy || undefined}
      />
      {props.error ? (
        <p class="field-error" id={`${id}-error`}>
          {props.error}
        </p>
      ) : null}
      {props.hint ? (
        <p class="hint" id={`${id}-hint`}>
          {props.hint}
        </p>
      ) : null}
    </div>
  );
}

export function SelectField(props: { name: string; label: string; value: string; options: [value: string, label: string][] }) {
  const id = `f-${props.name}`;
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <select id={id} name={props.name}>
        {props.options.map(([value, label]) => (
          <option value={value} selected={value === props.value}>
            {label}
          </option>
        ))}
      </select>
    </div>
  );
}

export const Badge = (props: { tone: "ok" | "bad" | "neutral" | "test"; children: Child }) => <span class={`badge ${props.tone}`}>{props.children}</span>;

const STATUS_TONE: Record<string, "ok" | "bad" | "neutral"> = { SUCCESS: "ok", FAILED: "bad", EXPIRED: "bad", CANCELED: "bad", REFUNDED: "neutral" };
/** The name of a payment's status or of a webhook's event (a saved method's end too); one this page does not know yet as it is. */
export const eventName = (t: Page["t"], status: string): string => (({ ...t.statuses, ...t.methodEvents }) as Record<string, string | undefined>)[status] ?? status;

/** A payment's (or a webhook's) status. */
export const StatusBadge = (props: { page: Page; status: string }) => <Badge tone={STATUS_TONE[props.status] ?? "neutral"}>{eventName(props.page.t, props.status)}</Badge>;

/**
 * A payment's status; a paid one refunded in part also says how much went back ("Оплачен" alone
 * read as if nothing had). A full refund is its own status, REFUNDED.
 */
export const PaymentStatusOf = (props: { page: Page; payment: Pick<Payment, "status" | "refundedKopecks"> }) => {
  const { page, payment } = props;
  return (
    <>
      <StatusBadge page={page} status={payment.status} />
      {payment.status === "SUCCESS" && payment.refundedKopecks > 0 ? (
        <span class="small muted block refund-note">{page.t.partlyRefunded(formatRubles(payment.refundedKopecks, page.lang))}</span>
      ) : null}
    </>
  );
};

export const Money = (props: { page: Page; kopecks: number }) => <span class="money">{formatRubles(props.kopecks, props.page.lang)}</span>;

/** A moment in Moscow time, always labelled as such: merchants and buyers span eleven time zones. */
export const When = (props: { page: Page; at: string | number | null }) =>
  props.at === null ? (
    <>{props.page.t.none}</>
  ) : (
    <time datetime={new Date(props.at).toISOString()}>
      {`${formatMoscow(props.at, props.page.lang)}\u00A0${props.page.t.msk}`}
    </time>
  );

/** A credential shown in full, with a copy button the script wires up. */
export function Secret(props: { page: Page; value: string; label: string }) {
  return (
    <div class="secret">
      <code id="secret-value" aria-label={props.label}>
        {props.value}
      </code>
      <button type="button" class="small" data-copy="secret-value" data-copied={props.page.t.copied} hidden>
        {props.page.t.copy}
      </button>
    </div>
  );
}

/** A POST button (its own small form), optionally asking for confirmation when scripts run. */
export function ActionButton(props: {
  page: Page;
  action: string;
  label: string;
  confirm?: string;
  tone?: "primary" | "danger" | "plain";
  fields?: Record<string, string>;
  /** In a table row: a compact button. */
  small?: boolean;
  /** Fields the person chooses before pressing it (an overlap). */
  children?: Child;
}) {
  return (
    <form method="post" action={props.action} class="inline" data-confirm={props.confirm}>
      <CsrfField page={props.page} />
      {Object.entries(props.fields ?? {}).map(([name, value]) => (
        <input type="hidden" name={name} value={value} />
      ))}
      {props.children}
      <button type="submit" class={`button ${props.tone ?? "plain"}${props.small ? " compact" : ""}`}>
        {props.label}
      </button>
    </form>
  );
}

/**
 * A form's fields and its button, for the roles allowed the action; the others read the same
 * fields disabled, without the button (the server refuses the action anyway: access.ts).
 */
export function EditableFields(props: { page: Page; action: Action; button?: string; children: Child }) {
  const editable = allows(props.page, props.action);
  return (
    <>
      <fieldset class="bare stack" disabled={!editable}>
        {props.children}
      </fieldset>
      {editable ? (
        <button type="submit" class="button primary">
          {props.button ?? props.page.t.save}
        </button>
      ) : null}
    </>
  );
}

/** Previous / "page N of M" / next, for any paged list. */
export function Pager(props: { page: Page; current: number; pages: number; href: (n: number) => string }) {
  const { t } = props.page;
  if (props.pages <= 1 && props.current === 1) return null;
  return (
    <nav class="pager" aria-label={t.pageOf(props.current, props.pages)}>
      {props.current > 1 ? <a href={props.href(props.current - 1)}>{t.previousPage}</a> : null}
      <span>{t.pageOf(props.current, props.pages)}</span>
      {props.current < props.pages ? <a href={props.href(props.current + 1)}>{t.nextPage}</a> : null}
    </nav>
  );
}
