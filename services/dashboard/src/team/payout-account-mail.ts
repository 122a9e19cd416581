import { accountTail, type PayoutAccount } from "@payaccept/contracts";
import { formatMoscow } from "@payaccept/web-ui";
import type { Mail } from "./mailer.ts";
import type { TeamDeps } from "./members.ts";

/** A new payout account and who set it, for the owners' mail. */
export type PayoutAccountChange = {
  accountId: string;
  byEmail: string;
  previous: PayoutAccount | null;
  next: PayoutAccount;
  heldUntil: number;
  at: number;
};

/**
 * The mail every owner gets when the account's payout account is entered or changed, in Russian
 * and then English (the dashboard does not know each owner's language). It names who did it, the
 * old and new account by their last digits and how long payouts wait: an owner who did not expect
 * it has that long to put the right account back, which holds payouts again, and to take the
 * person's access away.
 */
export function payoutAccountMail(to: string, change: PayoutAccountChange, detailsLink: string): Mail {
  const account = (p: PayoutAccount | null) => (p ? `${accountTail(p.account)}, БИК ${p.bik}` : "—");
  const accountEn = (p: PayoutAccount | null) => (p ? `${accountTail(p.account)}, BIK ${p.bik}` : "none");
  return {
    to,
    subject: "Изменён счёт для выплат / The payout account was changed",
    text: [
      `${change.byEmail} ${change.previous ? "изменил(а)" : "указал(а)"} расчётный счёт для выплат в кабинете payaccept ${formatMoscow(change.at, "ru")} МСК.`,
      `Был: ${account(change.previous)}`,
      `Стал: ${account(change.next)} (${change.next.recipientName})`,
      "",
      `Выплаты приостановлены до ${formatMoscow(change.heldUntil, "ru")} МСК. Если это сделали не вы и не ваши сотрудники, верните прежние реквизиты и отключите доступ этому человеку до этого времени:`,
      detailsLink,
      "",
      "—",
      "",
      `${change.byEmail} ${change.previous ? "changed" : "entered"} the settlement account payouts go to in the payaccept dashboard at ${formatMoscow(change.at, "en")} Moscow time.`,
      `Was: ${accountEn(change.previous)}`,
      `Now: ${accountEn(change.next)} (${change.next.recipientName})`,
      "",
      `Payouts are held until ${formatMoscow(change.heldUntil, "en")} Moscow time. If neither you nor your team did this, put the right details back and remove this person's access before then:`,
      detailsLink,
    ].join("\n"),
  };
}

/**
 * Mails every owner of the account about its new payout account; returns how many mails went.
 * A failed mail is logged and does not undo the change: the audit log and the page say it too.
 */
export async function mailOwnersOfPayoutAccount(deps: Pick<TeamDeps, "users" | "mailer" | "log" | "publicUrl">, change: PayoutAccountChange): Promise<number> {
  if (!deps.mailer) return 0;
  const owners = (await deps.users.members(change.accountId)).filter((m) => m.role === "owner");
  const link = `${deps.publicUrl.replace(/\/+$/, "")}/balance/details`;
  let sent = 0;
  for (const owner of owners) {
    try {
      await deps.mailer.send(payoutAccountMail(owner.email, change, link));
      sent++;
    } catch (e) {
      deps.log.warn({ accountId: change.accountId, to: owner.id, reason: (e as Error).message }, "payout account mail not sent");
    }
  }
  deps.log.info({ accountId: change.accountId, owners: owners.length, sent }, "owners mailed about a new payout account");
  return sent;
}
