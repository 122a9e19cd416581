import { PASSWORD_LENGTH } from "../../users/credentials-input.ts";
import type { Page } from "../page.ts";
import { Alert, CsrfField, TextField } from "./components.tsx";
import { Layout } from "./layout.tsx";

/** Sign-in and sign-up: the same two fields, different words, and a link to the other one. */
export function AuthPage(props: { page: Page; mode: "signIn" | "signUp"; email?: string; errors?: string[]; next?: string }) {
  const { t } = props.page;
  const signIn = props.mode === "signIn";
  const [title, action, button, otherQuestion, otherHref, otherLink] = signIn
    ? [t.signInTitle, "/login", t.signInButton, t.noAccount, "/signup", t.signUpLink]
    : [t.signUpTitle, "/signup", t.signUpButton, t.haveAccount, "/login", t.signInLink];
  return (
    <Layout page={props.page} title={title}>
      <section class="card narrow">
        <h1>{title}</h1>
        {props.errors?.length ? <Alert kind="error" items={props.errors} /> : null}
        <form method="post" action={action} class="stack">
          <CsrfField page={props.page} />
          {props.next ? <input type="hidden" name="next" value={props.next} /> : null}
          <TextField name="email" type="email" label={t.email} value={props.email} required autocomplete="username" maxlength={254} />
          <TextField
            name="password"
            type="password"
            label={t.password}
            hint={signIn ? undefined : t.passwordHint(PASSWORD_LENGTH.min)}
            required
            autocomplete={signIn ? "current-password" : "new-password"}
            maxlength={PASSWORD_LENGTH.max}
          />
          <button type="submit" class="button primary">
            {button}
          </button>
        </form>
        <p class="muted">
          {otherQuestion} <a href={otherHref}>{otherLink}</a>
        </p>
      </section>
    </Layout>
  );
}

/** The second step of signing in with a second factor: the app's code, or a recovery code. */
export function CodePage(props: { page: Page; next?: string; error?: string }) {
  const { t } = props.page;
  return (
    <Layout page={props.page} title={t.codeTitle}>
      <section class="card narrow">
        <h1>{t.codeTitle}</h1>
        <p>{t.codeText}</p>
        {props.error ? <Alert kind="error" items={[props.error]} /> : null}
        <form method="post" action="/login/code" class="stack">
          <CsrfField page={props.page} />
          {props.next ? <input type="hidden" name="next" value={props.next} /> : null}
          <TextField name="code" label={t.code} hint={t.codeHint} required autocomplete="one-time-code" maxlength={32} />
          <button type="submit" class="button primary">
            {t.codeButton}
          </button>
        </form>
      </section>
    </Layout>
  );
}
