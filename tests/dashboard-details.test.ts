import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { rpcs } from "@payaccept/contracts";
import { DashboardClient, text, uniqueEmail } from "./dashboard-client.ts";
import { startSmtpSink, type SmtpSink } from "./harness/smtp-sink.ts";
import { eventually, Stack } from "./harness/stack.ts";
import { enrol, member } from "./team-fixtures.ts";

setDefaultTimeout(120_000);

/**
 * The account's legal and bank details in the dashboard against real processes (directory,
 * dashboard, balance) and a real SMTP server: every kind of mistake named at its field in the
 * page's words, entry only by an owner or admin with a second factor, the audit entry, the hold
 * and the owners' mail on a new payout account. The store's side runs on both engines in
 * services/directory/src/account-details.test.ts; this file checks the pages, on SQLite.
 */
const GOOD = {
  legalForm: "company",
  name: "ООО «Ромашка»",
  inn: "7707083893",
  ogrn: "1027700132195",
  kpp: "773601001",
  bik: "044525225",
  bankName: "ПАО Сбербанк, г. Москва",
  correspondentAccount: "30101810400000000225",
  account: "40702810938000000001",
  recipientName: "ООО «Ромашка»",
};

let stack: Stack;
let smtp: SmtpSink;
let owner: DashboardClient;
let ownerEmail: string;
let coOwnerEmail: string;
let accountId: string;

/** The error said next to a field of the form. */
const fieldError = (html: string, field: string) => text(new RegExp(`id="f-${field}-error">([^<]*)<`).exec(html)?.[1] ?? "");

beforeAll(async () => {
  smtp = await startSmtpSink();
  stack = await Stack.start({ services: ["directory", "dashboard", "balance"], env: { TRUSTED_PROXIES: "127.0.0.1", SMTP_URL: smtp.url, PAYOUT_ACCOUNT_HOLD: "24h" } });
  owner = DashboardClient.of(stack);
  ownerEmail = uniqueEmail("details-owner");
  await owner.signUp(ownerEmail);
  await enrol(owner);
  coOwnerEmail = uniqueEmail("details-co-owner");
  await member(owner, coOwnerEmail, "owner");
  accountId = await accountOfOwner();
});
afterAll(async () => {
  await stack?.stop();
  await smtp?.stop();
});

const SUBJECT = "Изменён счёт для выплат / The payout account was changed";
/** The payout account mail `to` got (its invitation came before it). */
const payoutAccountMailTo = (to: string) =>
  eventually(() => smtp.mails.find((m) => m.subject === SUBJECT && [m.to ?? []].flat().some((a) => a.value.some((v) => v.address === to))), 20_000);

/** The account id, from a shop the owner makes. */
async function accountOfOwner(): Promise<string> {
  const created = await owner.submit("/shops", "/shops", { name: "Details shop", kind: "sandbox" });
  const shopId = /\/shops\/([0-9a-f-]{36})/.exec(created.location!)![1]!;
  return (await stack.call(rpcs.directory.getShop, { shopId })).shop.accountId;
}

describe("legal and bank details", () => {
  test("every mistake is named next to its field in an accountant's words; nothing is saved", async () => {
    const refused = await owner.submit("/balance/details", "/balance/details", {
      ...GOOD,
      inn: "7707083894",
      ogrn: "2027700132195",
      kpp: "",
      correspondentAccount: "30101810400000000974",
      account: "40817810938000000001",
    });
    expect(refused.status).toBe(400);
    expect(text(refused.html)).toContain("Проверьте реквизиты: ошибки указаны у полей.");
    expect(fieldError(refused.html, "inn")).toBe("не сходится контрольное число — вероятно, опечатка в одной из цифр");
    expect(fieldError(refused.html, "ogrn")).toContain("ОГРН организации начинается с 1 или 5");
    expect(fieldError(refused.html, "kpp")).toBe("у организации КПП обязателен");
    expect(fieldError(refused.html, "correspondentAccount")).toBe("последние три цифры должны совпадать с последними цифрами БИК (225)");
    expect(fieldError(refused.html, "account")).toBe("нужен расчётный счёт для этой формы: он начинается с 40701, 40702, 40703");
    expect(fieldError(refused.html, "bik")).toBe("");
    // What was typed stays in the form.
    expect(refused.html).toContain('value="7707083894"');
    const keyRefused = await owner.submit("/balance/details", "/balance/details", { ...GOOD, account: "40702810938000000002" });
    expect(fieldError(keyRefused.html, "account")).toBe("не сходится контрольный ключ с БИК — опечатка в счёте, или БИК другого банка");
    expect((await stack.call(rpcs.directory.getAccountDetails, { accountId })).details).toBeNull();
  });

  test("an owner with a second factor enters them: saved, held, recorded, and every owner is mailed", async () => {
    const saved = await owner.submit("/balance/details", "/balance/details", { ...GOOD, account: "4070 2810 9380 0000 0001" });
    expect(saved.status).toBe(303);
    const page = text((await owner.follow(saved)).html);
    expect(page).toContain("Реквизиты сохранены. Счёт для выплат новый: выплаты приостановлены до срока ниже, владельцам кабинета отправлено писем: 2.");
    expect(page).toMatch(/Выплаты приостановлены до \d\d\.\d\d\.\d{4} \d\d:\d\d\u00A0МСК: счёт для выплат изменён \d\d\.\d\d\.\d{4} \d\d:\d\d\u00A0МСК\./);

    const view = await stack.call(rpcs.directory.getAccountDetails, { accountId });
    expect(view.details?.payout.account).toBe("40702810938000000001");
    expect(view.payoutsHeldUntil! - view.payoutAccountChangedAt!).toBe(24 * 3600_000);

    for (const to of [ownerEmail, coOwnerEmail]) {
      const mail = await payoutAccountMailTo(to);
      expect(mail.text).toContain(`${ownerEmail} указал(а) расчётный счёт для выплат`);
      expect(mail.text).toContain("Стал: •• 0001, БИК 044525225 (ООО «Ромашка»)");
      expect(mail.text).toContain("/balance/details");
    }

    const { items } = await stack.call(rpcs.directory.auditLog, { accountId, action: "account.details_changed" });
    expect(items).toHaveLength(1);
    expect(items[0]!.actor).toMatchObject({ kind: "member", label: ownerEmail, role: "owner" });
    expect(items[0]!.after).toMatchObject({ inn: "7707083893", payout: { account: "40702810938000000001" }, payoutAccountChanged: true });

    // The balance page sums them up with the hold.
    const balance = text((await owner.get("/balance")).html);
    expect(balance).toContain("Выплаты уходят на счёт •• 0001 в ПАО Сбербанк, г. Москва, получатель — ООО «Ромашка».");
    expect(balance).toContain("Выплаты приостановлены до");
  });

  test("a new name is not a new payout account: no mail, no new hold", async () => {
    const before = await stack.call(rpcs.directory.getAccountDetails, { accountId });
    const mailsBefore = smtp.mails.length;
    const saved = await owner.submit("/balance/details", "/balance/details", { ...GOOD, name: "Общество с ограниченной ответственностью «Ромашка»" });
    expect(saved.status).toBe(303);
    expect(text((await owner.follow(saved)).html)).toContain("Реквизиты сохранены.");
    const after = await stack.call(rpcs.directory.getAccountDetails, { accountId });
    expect(after.details?.name).toBe("Общество с ограниченной ответственностью «Ромашка»");
    expect(after.payoutAccountChangedAt).toBe(before.payoutAccountChangedAt);
    expect(smtp.mails.length).toBe(mailsBefore);
  });

  test("an admin without a second factor is refused before anything is asked; an accountant reads them only", async () => {
    const admin = await member(owner, uniqueEmail("details-admin"), "admin");
    const form = await admin.get("/balance/details");
    expect(text(form.html)).toContain("Менять реквизиты можно только со вторым фактором входа.");
    expect(form.html).not.toContain('action="/balance/details"');
    const refused = await admin.post("/balance/details", { ...GOOD, account: "40702810338000000002" });
    expect(refused.status).toBe(409);
    expect(text(refused.html)).toContain("Сначала включите двухфакторный вход для себя.");

    const accountant = await member(owner, uniqueEmail("details-accountant"), "accountant");
    const read = text((await accountant.get("/balance/details")).html);
    expect(read).toContain("Расчётный счёт 40702810938000000001");
    expect(read).toContain("ИНН 7707083893");
    expect((await accountant.post("/balance/details", GOOD)).status).toBe(403);
    expect((await stack.call(rpcs.directory.getAccountDetails, { accountId })).details?.payout.account).toBe("40702810938000000001");
  });
});
