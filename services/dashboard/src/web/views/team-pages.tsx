import { ACCOUNT_ROLES, type AccountRole, type InviteRow, type TeamRow } from "../../store/schema.ts";
import type { Member } from "../../store/user-store.ts";
import type { Actor } from "../../team/members.ts";
import { PASSWORD_LENGTH } from "../../users/credentials-input.ts";
import type { FlashMessage } from "../flash.ts";
import { allows, type Page } from "../page.ts";
import { ActionButton, Alert, Badge, CsrfField, Secret, SelectField, TextField, When } from "./components.tsx";
import { Layout } from "./layout.tsx";

export type InviteForm = { email: string; role: AccountRole; errors: string[] };

/** The roles one may hand out: an admin cannot make an owner (members.ts, checkMemberChange). */
const grantable = (actor: Actor) => ACCOUNT_ROLES.filter((role) => role !== "owner" || actor.role === "owner");
const roleOptions = (page: Page, roles: readonly AccountRole[]): [string, string][] => roles.map((role) => [role, page.t.roleNames[role]]);

/** What an invitation action left: the link (shown once) and whether the mail went. */
function InviteLink(props: { page: Page; flash: Extract<FlashMessage, { kind: "invite" }> }) {
  const { t } = props.page;
  const mail = { sent: t.inviteMailSent, failed: t.inviteMailFailed, off: t.inviteMailOff }[props.flash.mail];
  return (
    <Alert kind={props.flash.mail === "failed" ? "warn" : "ok"} title={t.inviteLinkTitle(props.flash.email)}>
      <Secret page={props.page} value={props.flash.link} label={t.inviteLinkTitle(props.flash.email)} />
      <p>{mail}</p>
    </Alert>
  );
}

function MemberRow(props: { page: Page; actor: Actor; member: Member }) {
  const { page, actor, member } = props;
  const { t } = page;
  // An admin sees owners but cannot touch them; nobody is offered a change the server would refuse for role alone.
  const touchable = member.role !== "owner" || actor.role === "owner";
  return (
    <tr data-member={member.email}>
      <td data-label={t.memberEmail}>
        {member.email} {member.id === actor.id ? <span class="muted">({t.you})</span> : null}
      </td>
      <td data-label={t.accountRole}>
        <span class="role">{t.roleNames[member.role]}</span>
      </td>
      <td data-label={t.memberTwoFactor}>{member.twoFactor ? <Badge tone="ok">{t.yes}</Badge> : <Badge tone="neutral">{t.no}</Badge>}</td>
      <td data-label={t.memberSince}>
        <When page={page} at={member.createdAt} />
      </td>
      <td>
        {touchable ? (
          <div class="actions">
            <form method="post" action={`/team/members/${member.id}/role`} class="inline" data-confirm={t.changeRoleConfirm}>
              <CsrfField page={page} />
              <label class="visually-hidden" for={`role-${member.id}`}>
                {t.accountRole}
              </label>
              <select id={`role-${member.id}`} name="role">
                {roleOptions(page, grantable(actor)).map(([value, label]) => (
                  <option value={value} selected={value === member.role}>
                    {label}
                  </option>
                ))}
              </select>
              <button type="submit" class="button plain compact">
                {t.changeRole}
              </button>
            </form>
            <ActionButton page={page} action={`/team/members/${member.id}/remove`} label={t.removeMember} confirm={t.removeMemberConfirm} tone="danger" small />
          </div>
        ) : null}
      </td>
    </tr>
  );
}

/** The team of an account, for its owners and admins. */
export function TeamPage(props: {
  page: Page;
  actor: Actor;
  team: TeamRow | null;
  members: Member[];
  invites: InviteRow[];
  inviteTtlMs: number;
  inviteForm?: InviteForm;
  errors?: string[];
  flash?: Extract<FlashMessage, { kind: "notice" | "invite" }>;
}) {
  const { page, actor } = props;
  const { t } = page;
  const form = props.inviteForm ?? { email: "", role: "viewer", errors: [] };
  return (
    <Layout page={page} title={t.teamTitle}>
      <h1>{t.teamTitle}</h1>
      {props.flash?.kind === "notice" ? <Alert kind="ok">{t[props.flash.text]}</Alert> : null}
      {props.errors?.length ? <Alert kind="error" title={t.actionRefused} items={props.errors} /> : null}
      <section class="card" aria-labelledby="members-title">
        <h2 id="members-title">{t.membersTitle}</h2>
                  <table>
            <thead>
              <tr>
                <th scope="col">{t.memberEmail}</th>
                <th scope="col">{t.accountRole}</th>
                <th scope="col">{t.memberTwoFactor}</th>
                <th scope="col">{t.memberSince}</th>
                <th scope="col"></th>
              </tr>
            </thead>
            <tbody>
              {props.members.map((member) => (
                <MemberRow page={page} actor={actor} member={member} />
              ))}
            </tbody>
          </table>
      </section>
      <section class="card" id="invites" aria-labelledby="invites-title">
        <h2 id="invites-title">{t.invitesTitle}</h2>
        {props.flash?.kind === "invite" ? <InviteLink page={page} flash={props.flash} /> : null}
        {allows(page, "team.invite") ? (
          <>
            {form.errors.length ? <Alert kind="error" title={t.fixErrors} items={form.errors} /> : null}
            <form method="post" action="/team/invites" class="stack">
              <CsrfField page={page} />
              <TextField name="email" type="email" label={t.inviteEmail} value={form.email} required autocomplete="off" maxlength={254} />
              <SelectField name="role" label={t.inviteRole} value={form.role} options={roleOptions(page, grantable(actor))} />
              <button type="submit" class="button primary">
                {t.inviteButton}
              </button>
              <p class="hint">{t.inviteNote(Math.round(props.inviteTtlMs / 3_600_000))}</p>
            </form>
          </>
        ) : null}
        {props.invites.length === 0 ? (
          <p class="muted">{t.noInvites}</p>
        ) : (
                      <table>
              <thead>
                <tr>
                  <th scope="col">{t.inviteEmail}</th>
                  <th scope="col">{t.inviteRole}</th>
                  <th scope="col">{t.invitedBy}</th>
                  <th scope="col">{t.inviteExpires}</th>
                  <th scope="col"></th>
                </tr>
              </thead>
              <tbody>
                {props.invites.map((invite) => (
                  <tr data-invite={invite.email}>
                    <td data-label={t.inviteEmail}>{invite.email}</td>
                    <td data-label={t.inviteRole}>{t.roleNames[invite.role]}</td>
                    <td data-label={t.invitedBy}>{invite.invitedByEmail}</td>
                    <td data-label={t.inviteExpires}>
                      <When page={page} at={invite.expiresAt} />
                    </td>
                    <td>
                      <ActionButton page={page} action={`/team/invites/${invite.id}/revoke`} label={t.revokeInvite} small />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
        )}
      </section>
      <section class="card" aria-labelledby="team-settings-title">
        <h2 id="team-settings-title">{t.teamSettingsTitle}</h2>
        <form method="post" action="/team/settings" class="stack">
          <CsrfField page={page} />
          <label>
            <input type="checkbox" name="requireTwoFactor" checked={props.team?.requireTwoFactor ?? false} /> {t.requireTwoFactor}
          </label>
          <p class="hint">{t.requireTwoFactorHint}</p>
          <button type="submit" class="button primary">
            {t.save}
          </button>
        </form>
      </section>
      <section class="card" aria-labelledby="roles-title">
        <h2 id="roles-title">{t.rolesTitle}</h2>
        <dl class="facts">
          {ACCOUNT_ROLES.map((role) => (
            <>
              <dt>{t.roleNames[role]}</dt>
              <dd>{t.roleHints[role]}</dd>
            </>
          ))}
        </dl>
      </section>
    </Layout>
  );
}

/** The page an invitation link opens: who invites, to which role, and a password to set. */
export function AcceptInvitePage(props: { page: Page; invite: InviteRow; token: string; signedInAs?: string; errors?: string[] }) {
  const { page, invite } = props;
  const { t } = page;
  return (
    <Layout page={page} title={t.acceptTitle}>
      <section class="card narrow">
        <h1>{t.acceptTitle}</h1>
        <p>{t.acceptText(invite.invitedByEmail, t.roleNames[invite.role])}</p>
        {props.signedInAs ? <Alert kind="warn">{t.acceptSignedIn(props.signedInAs)}</Alert> : null}
        {props.errors?.length ? <Alert kind="error" items={props.errors} /> : null}
        <form method="post" action="/invite" class="stack">
          <CsrfField page={page} />
          <input type="hidden" name="token" value={props.token} />
          <TextField name="email" type="email" label={t.email} value={invite.email} autocomplete="username" readonly />
          <TextField name="password" type="password" label={t.password} hint={t.passwordHint(PASSWORD_LENGTH.min)} required autocomplete="new-password" maxlength={PASSWORD_LENGTH.max} />
          <button type="submit" class="button primary">
            {t.acceptButton}
          </button>
        </form>
      </section>
    </Layout>
  );
}
