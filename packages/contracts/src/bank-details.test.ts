import { describe, expect, test } from "bun:test";
import { AccountDetailsInput, ogrnChecksumOk, samePayoutAccount, settlementAccountKeyOk, correspondentAccountKeyOk } from "./bank-details.ts";
import { isValidInn } from "./inn.ts";
import { issuesOf } from "./errors.ts";

// Sberbank's published details (a company at its own bank) and a textbook entrepreneur's numbers.
const company = {
  legalForm: "company",
  name: "ПАО Сбербанк",
  inn: "7707083893",
  ogrn: "1027700132195",
  kpp: "773601001",
  payout: { bik: "044525225", bankName: "ПАО Сбербанк, г. Москва", correspondentAccount: "30101810400000000225", account: "40702810938000000001", recipientName: "ПАО Сбербанк" },
};
const entrepreneur = {
  legalForm: "entrepreneur",
  name: "Иванов Иван Иванович",
  inn: "500100732259",
  ogrn: "304500116000157",
  kpp: "",
  payout: { bik: "044525974", bankName: "АО «ТБанк»", correspondentAccount: "30101810145250000974", account: "40802810400000012345", recipientName: "ИП Иванов Иван Иванович" },
};

/** The problems of a form as (path, rule) pairs. */
function problems(input: unknown): [string, unknown][] {
  const parsed = AccountDetailsInput.safeParse(input);
  return parsed.success ? [] : issuesOf(parsed.error).map((i) => [i.path, i.params.rule ?? i.issue]);
}

describe("legal and bank details", () => {
  test("real details of a company and an entrepreneur pass, typed with spaces and dashes too", () => {
    expect(problems(company)).toEqual([]);
    expect(problems(entrepreneur)).toEqual([]);
    const typed = AccountDetailsInput.parse({ ...company, inn: "7707 083 893", payout: { ...company.payout, account: "40702-810-9-3800-0000001" } });
    expect(typed.inn).toBe("7707083893");
    expect(typed.payout.account).toBe("40702810938000000001");
    expect(AccountDetailsInput.parse(entrepreneur).kpp).toBeNull();
  });

  test("the check digits are the tax service's: one changed digit anywhere is caught", () => {
    expect(isValidInn("7707083893")).toBe(true);
    expect(isValidInn("500100732259")).toBe(true);
    for (let i = 0; i < 10; i++) expect(isValidInn(bump("7707083893", i))).toBe(false);
    for (let i = 0; i < 12; i++) expect(isValidInn(bump("500100732259", i))).toBe(false);
    expect(ogrnChecksumOk("1027700132195")).toBe(true);
    expect(ogrnChecksumOk("304500116000157")).toBe(true);
    expect(ogrnChecksumOk(bump("1027700132195", 12))).toBe(false);
    expect(ogrnChecksumOk(bump("304500116000157", 14))).toBe(false);
  });

  test("the control keys are computed against the BIK, as the Bank of Russia defines them", () => {
    expect(settlementAccountKeyOk("044525225", "40702810938000000001")).toBe(true);
    expect(correspondentAccountKeyOk("044525225", "30101810400000000225")).toBe(true);
    // The right account at another bank: its key does not match that BIK.
    expect(settlementAccountKeyOk("044525974", "40702810938000000001")).toBe(false);
    for (let i = 0; i < 20; i++) expect(settlementAccountKeyOk("044525225", bump("40702810938000000001", i))).toBe(false);
  });

  test("every kind of mistake is named at its field, all at once", () => {
    expect(problems({ ...company, inn: "770708389", ogrn: "10277001321", kpp: "7736010", payout: { ...company.payout, bik: "04452522", correspondentAccount: "3010181040000000022", account: "4070281093800000000" } })).toEqual([
      ["inn", "DIGITS_COUNT"],
      ["ogrn", "DIGITS_COUNT"],
      ["kpp", "KPP_FORMAT"],
      ["payout.bik", "DIGITS_COUNT"],
      ["payout.correspondentAccount", "DIGITS_COUNT"],
      ["payout.account", "DIGITS_COUNT"],
    ]);
    expect(problems({ ...company, inn: "7707083894", ogrn: "1027700132196" })).toEqual([
      ["inn", "INN_CHECKSUM"],
      ["ogrn", "OGRN_CHECKSUM"],
    ]);
    // An entrepreneur's 12-digit INN on a company, a register entry's number (ГРН) for the ОГРН.
    expect(problems({ ...company, inn: "500100732259", ogrn: "2027700132195" })).toEqual([
      ["inn", "DIGITS_COUNT"],
      ["ogrn", "OGRN_KIND"],
    ]);
    expect(problems({ ...company, kpp: "" })).toEqual([["kpp", "KPP_REQUIRED"]]);
    expect(problems({ ...entrepreneur, kpp: "773601001" })).toEqual([["kpp", "KPP_NOT_FOR_ENTREPRENEUR"]]);
    expect(problems({ ...company, payout: { ...company.payout, bik: "123456789" } })).toEqual([["payout.bik", "BIK_FORMAT"]]);
    expect(problems({ ...company, payout: { ...company.payout, correspondentAccount: "40101810400000000225" } })).toEqual([["payout.correspondentAccount", "CORRESPONDENT_ACCOUNT_KIND"]]);
    expect(problems({ ...company, payout: { ...company.payout, correspondentAccount: "30101810400000000974" } })).toEqual([["payout.correspondentAccount", "CORRESPONDENT_ACCOUNT_BIK"]]);
    expect(problems({ ...company, payout: { ...company.payout, correspondentAccount: "30101810500000000225" } })).toEqual([["payout.correspondentAccount", "CONTROL_KEY"]]);
    expect(problems({ ...company, payout: { ...company.payout, account: "40702810938000000002" } })).toEqual([["payout.account", "CONTROL_KEY"]]);
    // A private person's account, and a dollar account, are not where a company is paid.
    expect(problems({ ...company, payout: { ...company.payout, account: "40817810938000000001" } })).toEqual([["payout.account", "SETTLEMENT_ACCOUNT_KIND"]]);
    expect(problems({ ...company, payout: { ...company.payout, account: "40702840938000000001" } })).toEqual([["payout.account", "ACCOUNT_NOT_RUBLES"]]);
    expect(problems({ ...entrepreneur, payout: { ...entrepreneur.payout, account: "40702810400000012345" } })).toEqual([["payout.account", "SETTLEMENT_ACCOUNT_KIND"]]);
    expect(problems({ ...company, name: " ", payout: { ...company.payout, recipientName: "", bankName: "" } }).map(([path]) => path)).toEqual(["name", "payout.bankName", "payout.recipientName"]);
  });

  test("the payout account is the bank, the account and its correspondent account; names do not redirect money", () => {
    const p = AccountDetailsInput.parse(company).payout;
    expect(samePayoutAccount(p, { ...p, recipientName: "Другое имя", bankName: "Другой банк" })).toBe(true);
    expect(samePayoutAccount(p, { ...p, account: "40702810338000000002" })).toBe(false);
    expect(samePayoutAccount(null, p)).toBe(false);
  });
});

/** The digits with the one at `i` changed (plus one, mod 10). */
function bump(digits: string, i: number): string {
  return digits.slice(0, i) + String((Number(digits[i]) + 1) % 10) + digits.slice(i + 1);
}
