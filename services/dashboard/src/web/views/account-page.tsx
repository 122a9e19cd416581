import { raw } from "hono/html";
import { mustEnrol } from "../access.ts";
import type { Viewer } from "../env.ts";
import type { FlashMessage } from "../flash.ts";
import type { Page } from "../page.ts";
import { ActionButton, Alert, CsrfField, TextField, When } from "./components.tsx";
import { Layout } from "./layout.tsx";

/** An enrolment waiting for its first code: the QR code (inline SVG) and the key to type in. */
export type Enrolment = { qr: string; secret: string; error?: string };

function TwoFactorSection(props: { page: Page; viewer: Viewer; enabledAt: number | null; codesLeft: number; enrolment?: Enrolment; codes?: string[] }) {
  const { page, viewer, enrolment } = props;
  const { t } = page;
  return (
    <section class="card" id="two-factor" aria-labelledby="two-factor-title">
      <h2 id="two-factor-title">{t.twoFactorTitle}</h2>
      {mustEnrol(viewer) ? <Alert kind="warn">{t.twoFactorRequiredByTeam}</Alert> : null}
      {props.codes ? (
        <Alert kind="warn" title={t.recoveryCodesTitle}>
          <p>{t.recoveryCodesShownOnce}</p>
          <ul class="recovery-codes">
            {props.codes.map((code) => (
              <li>
                <code>{code}</code>
              </li>
            ))}
          </ul>
        </Alert>
      ) : null}
      {props.enabledAt !== null ? (
        <>
          <p>
            {t.twoFactorOnSince} <When page={page} at={props.enabledAt} />
          </p>
          <p>{t.recoveryCodesLeft(props.codesLeft)}</p>
          <div class="actions">
            <ActionButton page={page} action="/account/recovery-codes" label={t.recoveryCodesRegenerate} confirm={t.recoveryCodesRegenerateConfirm} />
            {viewer.team?.requireTwoFactor ? null : (
              <ActionButton page={page} action="/account/two-factor/disable" label={t.twoFactorDisable} confirm={t.twoFactorDisableConfirm} tone="danger" />
            )}
          </div>
        </>
      ) : enrolment ? (
        <>
          <p>{t.twoFactorScan}</p>
          <figure class="qr" aria-label={t.twoFactorQr}>
            {raw(enrolment.qr)}
          </figure>
          <p>
            {t.twoFactorManualKey}: <code id="totp-secret">{enrolment.secret}</code>
          </p>
          {enrolment.error ? <Alert kind="error" items={[enrolment.error]} /> : null}
          <form method="post" action="/account/two-factor/confirm" class="stack">
            <CsrfField page={page} />
            <TextField name="code" label={t.code} required autocomplete="one-time-code" inputmode="numeric" maxlength={6} />
            <button type="submit" class="button primary">
              {t.twoFactorConfirm}
            </button>
          </form>
        </>
      ) : (
        <>
          <p>{t.twoFactorOff}</p>
          <ActionButton page={page} action="/account/two-factor" label={t.twoFactorEnable} tone="primary" />
        </>
      )}
    </section>
  );
}

/** One's own account: who, which role, the second factor, leaving the team. */
export function AccountPage(props: {
  page: Page;
  viewer: Viewer;
  enabledAt: number | null;
  codesLeft: number;
  enrolment?: Enrolment;
  flash?: Extract<FlashMessage, { kind: "notice" | "recoveryCodes" | "recoveryCodeUsed" }>;
  errors?: string[];
}) {
  const { page, viewer, flash } = props;
  const { t } = page;
  return (
    <Layout page={page} title={t.accountTitle}>
      <h1>{t.accountTitle}</h1>
      {flash?.kind === "notice" ? <Alert kind="ok">{t[flash.text]}</Alert> : null}
      {flash?.kind === "recoveryCodeUsed" ? <Alert kind="warn">{t.recoveryCodeUsed(flash.left)}</Alert> : null}
      {props.errors?.length ? <Alert kind="error" title={t.actionRefused} items={props.errors} /> : null}
      <section class="card" aria-labelledby="who-title">
        <h2 id="who-title" class="visually-hidden">
          {t.accountTitle}
        </h2>
        <dl class="facts">
          <dt>{t.email}</dt>
          <dd>{viewer.user.email}</dd>
          <dt>{t.accountRole}</dt>
          <dd data-role={viewer.user.role}>{t.roleNames[viewer.user.role]}</dd>
        </dl>
      </section>
      <TwoFactorSection
        page={page}
        viewer={viewer}
        enabledAt={props.enabledAt}
        codesLeft={props.codesLeft}
        enrolment={props.enrolment}
        codes={flash?.kind === "recoveryCodes" ? flash.codes : undefined}
      />
      {viewer.user.accountId ? (
        <section class="card" aria-labelledby="leave-title">
          <h2 id="leave-title">{t.leaveTeamTitle}</h2>
          <p>{t.leaveTeamText}</p>
          <ActionButton page={page} action="/account/leave" label={t.leaveTeam} confirm={t.leaveTeamConfirm} tone="danger" />
        </section>
      ) : null}
    </Layout>
  );
}
