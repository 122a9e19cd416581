import { z } from "zod";
import { Text } from "./primitives.ts";
import type { IssueRule } from "./reasons.ts";
import { isValidInn } from "./inn.ts";

/**
 * The legal and bank details of an account: whom payouts go to (docs/directory.md, "Legal and
 * bank details"). The checks are the ones a Russian bank's own software makes before it takes a
 * payment order: the check digits of the INN and the OGRN/OGRNIP, the KPP's shape, and the Bank
 * of Russia's control key of both accounts computed against the BIK (Положение Банка России
 * № 579-П), so a typo is caught where it is typed instead of by a returned payout days later.
 */

/** Individual entrepreneur (ИП) or a company (ООО, АО…). */
export const LEGAL_FORMS = ["entrepreneur", "company"] as const;
export const LegalForm = z.enum(LEGAL_FORMS);
export type LegalForm = z.infer<typeof LegalForm>;

/** A number as typed: the spaces and dashes people paste between groups are dropped. */
const Digits = Text.transform((s) => s.replace(/[\s-]/g, ""));
/** A name as it goes on a payment order (its fields hold 160 characters). */
const OrderName = Text.trim().min(1).max(160);

export const PayoutAccountInput = z.object({
  bik: Digits,
  /** The recipient's bank, as the payment order names it (ПолучательБанк1). */
  bankName: Text.trim().min(1).max(140),
  correspondentAccount: Digits,
  /** The settlement account (расчётный счёт), 20 digits. */
  account: Digits,
  /** The payee as the payment order names them: the company's name, or «ИП Фамилия Имя Отчество». */
  recipientName: OrderName,
});
export type PayoutAccount = z.output<typeof PayoutAccountInput>;

const AccountDetailsShape = z.object({
  legalForm: LegalForm,
  /** The full name: «Общество с ограниченной ответственностью "Ромашка"», or the entrepreneur's full name. */
  name: OrderName,
  inn: Digits,
  /** ОГРН of a company (13 digits) or ОГРНИП of an entrepreneur (15 digits). */
  ogrn: Digits,
  /** A company's КПП; an entrepreneur has none (empty or absent). */
  kpp: Digits.nullable().optional().transform((v) => (v ? v : null)),
  payout: PayoutAccountInput,
});

/** What an owner enters; every problem is reported at once, each at its field's path. */
export const AccountDetailsInput = AccountDetailsShape.superRefine((d, ctx) => {
  for (const p of accountDetailsProblems(d)) ctx.addIssue({ code: "custom", input: d, path: p.path.split("."), message: p.message, params: { rule: p.rule, ...p.params } });
});
export type AccountDetails = z.output<typeof AccountDetailsShape>;
/** As stored and read back: already checked. */
export const AccountDetails = AccountDetailsShape;

export type DetailsProblem = { path: string; rule: IssueRule; message: string; params: Record<string, string | number> };

const digitsOnly = (s: string, n: number) => s.length === n && /^\d+$/.test(s);

/** ОГРН (13 digits): the rest of the first 12 divided by 11, its last digit; ОГРНИП (15): of the first 14 by 13. */
export function ogrnChecksumOk(ogrn: string): boolean {
  const n = ogrn.length === 13 ? 11n : ogrn.length === 15 ? 13n : 0n;
  if (n === 0n || !/^\d+$/.test(ogrn)) return false;
  return Number((BigInt(ogrn.slice(0, -1)) % n) % 10n) === Number(ogrn.at(-1));
}

/**
 * The Bank of Russia's control key: the 3 digits of the bank's conditional number followed by the
 * 20 of the account, weighted 7, 1, 3 over and over; the sum of the products' last digits ends in 0.
 */
function controlKeyOk(bankPart: string, account: string): boolean {
  const s = bankPart + account;
  let sum = 0;
  for (let i = 0; i < s.length; i++) sum += (Number(s[i]) * [7, 1, 3][i % 3]!) % 10;
  return sum % 10 === 0;
}
/** A settlement account in a bank: the key is computed with the BIK's last three digits. */
export const settlementAccountKeyOk = (bik: string, account: string) => controlKeyOk(bik.slice(6, 9), account);
/** A bank's correspondent account at the Bank of Russia: with "0" and the BIK's 5th and 6th digits. */
export const correspondentAccountKeyOk = (bik: string, account: string) => controlKeyOk(`0${bik.slice(4, 6)}`, account);

/**
 * The balance accounts a payout may go to (the first five digits): a company's settlement account
 * (40701 financial, 40702 commercial, 40703 non-commercial organisations), an entrepreneur's
 * (40802). A private person's account (40817) or a card is not where a business is paid.
 */
export const SETTLEMENT_ACCOUNT_PREFIXES: Record<LegalForm, readonly string[]> = { company: ["40701", "40702", "40703"], entrepreneur: ["40802"] };
/** The currency digits (6th to 8th) of a ruble account. */
const RUBLES = "810";

type Input = z.output<typeof AccountDetailsShape>;

/**
 * Every problem of the details, in the order of the form's fields. Without an `ogrn` (the
 * platform's own account as balance is configured with it: a payment order does not carry one)
 * the OGRN is not checked.
 */
export function accountDetailsProblems(d: Omit<Input, "ogrn"> & { ogrn?: string }): DetailsProblem[] {
  const problems: DetailsProblem[] = [];
  const add = (path: string, rule: IssueRule, message: string, params: Record<string, string | number> = {}) => problems.push({ path, rule, message, params });
  const company = d.legalForm === "company";

  const innDigits = company ? 10 : 12;
  if (!digitsOnly(d.inn, innDigits)) add("inn", "DIGITS_COUNT", `must be ${innDigits} digits`, { digits: innDigits });
  else if (!isValidInn(d.inn)) add("inn", "INN_CHECKSUM", "the check digits do not match: a digit is mistyped");

  const ogrnDigits = company ? 13 : 15;
  if (d.ogrn !== undefined) {
    if (!digitsOnly(d.ogrn, ogrnDigits)) add("ogrn", "DIGITS_COUNT", `must be ${ogrnDigits} digits`, { digits: ogrnDigits });
    else if (!(company ? "15" : "3").includes(d.ogrn[0]!)) add("ogrn", "OGRN_KIND", company ? "a company's ОГРН starts with 1 or 5" : "an entrepreneur's ОГРНИП starts with 3");
    else if (!ogrnChecksumOk(d.ogrn)) add("ogrn", "OGRN_CHECKSUM", "the check digit does not match: a digit is mistyped");
  }

  if (company && d.kpp === null) add("kpp", "KPP_REQUIRED", "a company's КПП is required");
  else if (!company && d.kpp !== null) add("kpp", "KPP_NOT_FOR_ENTREPRENEUR", "an entrepreneur has no КПП: leave it empty");
  else if (d.kpp !== null && !/^\d{4}[\dA-Z]{2}\d{3}$/.test(d.kpp)) add("kpp", "KPP_FORMAT", "must be 9 characters: 4 digits, 2 digits or capital Latin letters, 3 digits");

  const { bik, correspondentAccount: corr, account } = d.payout;
  const bikOk = digitsOnly(bik, 9) && bik.startsWith("04");
  if (!digitsOnly(bik, 9)) add("payout.bik", "DIGITS_COUNT", "must be 9 digits", { digits: 9 });
  else if (!bikOk) add("payout.bik", "BIK_FORMAT", "a Russian bank's BIK starts with 04");

  if (!digitsOnly(corr, 20)) add("payout.correspondentAccount", "DIGITS_COUNT", "must be 20 digits", { digits: 20 });
  else if (!corr.startsWith("30101")) add("payout.correspondentAccount", "CORRESPONDENT_ACCOUNT_KIND", "a bank's correspondent account starts with 30101");
  else if (bikOk && corr.slice(17) !== bik.slice(6)) add("payout.correspondentAccount", "CORRESPONDENT_ACCOUNT_BIK", "its last three digits must be the BIK's last three", { bikEnd: bik.slice(6) });
  else if (bikOk && !correspondentAccountKeyOk(bik, corr)) add("payout.correspondentAccount", "CONTROL_KEY", "the control key does not match the BIK: a digit is mistyped, or the BIK is another bank's");

  const prefixes = SETTLEMENT_ACCOUNT_PREFIXES[d.legalForm];
  if (!digitsOnly(account, 20)) add("payout.account", "DIGITS_COUNT", "must be 20 digits", { digits: 20 });
  else if (!prefixes.some((p) => account.startsWith(p))) add("payout.account", "SETTLEMENT_ACCOUNT_KIND", `must be a settlement account of this legal form: it starts with ${prefixes.join(", ")}`, { prefixes: prefixes.join(", ") });
  else if (account.slice(5, 8) !== RUBLES) add("payout.account", "ACCOUNT_NOT_RUBLES", "must be a ruble account: its 6th to 8th digits are 810");
  else if (bikOk && !settlementAccountKeyOk(bik, account)) add("payout.account", "CONTROL_KEY", "the control key does not match the BIK: a digit is mistyped, or the BIK is another bank's");

  return problems;
}

/**
 * The same payout account: where the money goes. A change of it is what holds payouts
 * (docs/directory.md); the names on the order do not redirect money.
 */
export const samePayoutAccount = (a: PayoutAccount | null | undefined, b: PayoutAccount | null | undefined) =>
  !!a && !!b && a.bik === b.bik && a.account === b.account && a.correspondentAccount === b.correspondentAccount;

/** "•• 0001": the end of an account, enough to recognise it in a mail or a list. */
export const accountTail = (account: string) => `•• ${account.slice(-4)}`;
