import type { InviteRow } from "../store/schema.ts";
import { MESSAGES } from "../web/i18n.ts";
import type { Mail } from "./mailer.ts";

/**
 * The invitation mail, in Russian and then English: the dashboard does not know the invitee's
 * language, and the link is the same. Plain text: nothing to render, nothing to strip.
 */
export function inviteMail(invite: InviteRow, link: string, ttlMs: number): Mail {
  const hours = Math.round(ttlMs / 3_600_000);
  const [ru, en] = [MESSAGES.ru.roleNames[invite.role], MESSAGES.en.roleNames[invite.role]];
  return {
    to: invite.email,
    subject: "Приглашение в кабинет payaccept / Invitation to the payaccept dashboard",
    text: [
      `${invite.invitedByEmail} приглашает вас в команду кабинета payaccept с ролью «${ru}».`,
      `Чтобы принять приглашение и задать пароль, откройте ссылку (она действует ${hours} ч и только один раз):`,
      "",
      link,
      "",
      "Если вы не ждали этого письма, просто удалите его.",
      "",
      "—",
      "",
      `${invite.invitedByEmail} invites you to their team in the payaccept dashboard as ${en}.`,
      `To accept and set your password, open the link (valid for ${hours} h, once):`,
      "",
      link,
      "",
      "If you did not expect this mail, just delete it.",
    ].join("\n"),
  };
}
