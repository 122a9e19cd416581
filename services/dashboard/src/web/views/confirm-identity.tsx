import type { Form } from "../forms.ts";
import type { Page } from "../page.ts";
import { Alert, CsrfField, TextField } from "./components.tsx";
import { Layout } from "./layout.tsx";

/** The field that carries the code (or password) with a sensitive action's own fields. */
export const REAUTH_FIELD = "reauth";

/**
 * "Confirm it is you" before a sensitive action: the code from the app (or a recovery code), or the
 * password of someone without a second factor. The action's own fields ride along hidden, so
 * sending this form does the action at once; nothing typed earlier is lost.
 */
export function ConfirmIdentityPage(props: { page: Page; action: string; form: Form; twoFactor: boolean; error?: string }) {
  const { page } = props;
  const { t } = page;
  const carried = Object.entries(props.form).flatMap(([name, v]) =>
    name === "csrf" || name === REAUTH_FIELD ? [] : (Array.isArray(v) ? v : [v]).filter((x): x is string => typeof x === "string").map((value) => [name, value] as const),
  );
  return (
    <Layout page={page} title={t.confirmTitle}>
      <section class="card narrow">
        <h1>{t.confirmTitle}</h1>
        <p>{props.twoFactor ? t.confirmWithCode : t.confirmWithPassword}</p>
        {props.error ? <Alert kind="error" items={[props.error]} /> : null}
        <form method="post" action={props.action} class="stack">
          <CsrfField page={page} />
          {carried.map(([name, value]) => (
            <input type="hidden" name={name} value={value} />
          ))}
          {props.twoFactor ? (
            <TextField name={REAUTH_FIELD} label={t.code} hint={t.codeHint} required autocomplete="one-time-code" maxlength={32} />
          ) : (
            <TextField name={REAUTH_FIELD} type="password" label={t.password} required autocomplete="current-password" maxlength={128} />
          )}
          <button type="submit" class="button primary">
            {t.confirmButton}
          </button>
        </form>
      </section>
    </Layout>
  );
}
