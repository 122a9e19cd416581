import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { URI, type TOTP } from "otpauth";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { uniqueEmail } from "../dashboard-client.ts";
import { startSmtpSink, type SmtpSink } from "../harness/smtp-sink.ts";
import { Stack } from "../harness/stack.ts";
import { Authenticator, inviteLinkIn } from "../team-fixtures.ts";
import { DESKTOP, fitsWidth, launchBrowser, openPage, PHONE, screenshot } from "./browser.ts";
import { scanQr } from "./qr.ts";

// A real browser against real services and a real SMTP server; bounded all the same.
setDefaultTimeout(180_000);

/**
 * A merchant's team in Debian's chromium, where people click: the owner turns on two-factor sign-in
 * by scanning the QR code (read from the pixels, codes computed here), signs in again with a code,
 * invites an accountant (a sensitive action: asked for a code again, DASHBOARD_REAUTH_AFTER being
 * one second here), the mail arrives at the SMTP server, the accountant accepts and sees only their
 * role's pages; the owner changes their role and the accountant's next page is the sign-in.
 * Screenshots in tests/artifacts/team-*.png.
 */

const WAIT = { timeout: 20_000 };
const OWNER_PASSWORD = "correct horse battery";
const MEMBER_PASSWORD = "accountant password 1";
const REAUTH_AFTER_MS = 1000;

let stack: Stack;
let browser: Browser;
let smtp: SmtpSink;
let dashboard: string;
const contexts: BrowserContext[] = [];
const owner = { email: uniqueEmail("team-browser-owner"), app: undefined as Authenticator | undefined, recoveryCodes: [] as string[] };
const accountant = { email: uniqueEmail("team-browser-accountant") };

beforeAll(async () => {
  smtp = await startSmtpSink();
  [stack, browser] = await Promise.all([
    Stack.start({ services: ["directory", "dashboard"], env: { SMTP_URL: smtp.url, DASHBOARD_REAUTH_AFTER: `${REAUTH_AFTER_MS}ms` } }),
    launchBrowser(),
  ]);
  dashboard = stack.url("dashboard");
});

afterAll(async () => {
  for (const c of contexts) await c.close();
  await browser?.close();
  await stack?.stop();
  await smtp?.stop();
});

const newPage = (options = DESKTOP) => openPage(browser, contexts, options);

const heading = (page: Page, name: string | RegExp) => page.getByRole("heading", { level: 1, name });
const bodyText = (page: Page) => page.locator("body").innerText();

/** Past DASHBOARD_REAUTH_AFTER since the last proof: the next sensitive action asks again. */
const outlastReauthWindow = () => Bun.sleep(REAUTH_AFTER_MS + 200);

describe("a merchant's team in the browser", () => {
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    ({ page, errors } = await newPage());
  });

  test("the owner signs up and turns on two-factor sign-in by scanning the QR code; the recovery codes are shown once", async () => {
    await page.goto(`${dashboard}/signup`);
    await page.getByLabel("Email").fill(owner.email);
    await page.getByLabel("Пароль").fill(OWNER_PASSWORD);
    await page.getByRole("button", { name: "Зарегистрироваться" }).click();
    await heading(page, "Обзор").waitFor(WAIT);

    await page.getByRole("link", { name: "Учётная запись" }).click();
    await heading(page, "Учётная запись").waitFor(WAIT);
    await page.getByRole("button", { name: "Включить двухфакторный вход" }).click();
    const qr = page.getByRole("figure", { name: "QR-код для приложения-аутентификатора" });
    await qr.waitFor(WAIT);
    await screenshot(page, "team-1-enrolment-qr");
    // The phone's camera: the QR code's pixels carry the otpauth URI the app takes.
    const uri = await scanQr(qr);
    const scanned = URI.parse(uri!) as TOTP;
    expect(scanned.issuer).toBe("payaccept");
    expect(scanned.label).toBe(owner.email);
    expect(await page.locator("#totp-secret").textContent()).toBe(scanned.secret.base32);
    owner.app = new Authenticator(scanned.secret.base32);

    await page.getByLabel("Код", { exact: true }).fill(await owner.app.code());
    await page.getByRole("button", { name: "Включить", exact: true }).click();
    await page.getByText("Сохраните эти коды в надёжном месте").waitFor(WAIT);
    owner.recoveryCodes = await page.locator(".recovery-codes code").allTextContents();
    expect(owner.recoveryCodes).toHaveLength(10);
    await screenshot(page, "team-2-recovery-codes");
    await page.reload();
    expect(await bodyText(page)).not.toContain(owner.recoveryCodes[0]!);
    expect(await bodyText(page)).toContain("Неиспользованных резервных кодов: 10.");
  });

  test("signing in asks for the code after the password", async () => {
    await page.getByRole("button", { name: "Выйти" }).click();
    await heading(page, "Вход в кабинет").waitFor(WAIT);
    await page.getByLabel("Email").fill(owner.email);
    await page.getByLabel("Пароль").fill(OWNER_PASSWORD);
    await page.getByRole("button", { name: "Войти" }).click();
    await heading(page, "Вход: код подтверждения").waitFor(WAIT);
    await page.getByLabel("Код", { exact: true }).fill("000000");
    await page.getByRole("button", { name: "Войти" }).click();
    await page.getByText("Неверный код или он уже использован.").waitFor(WAIT);
    await screenshot(page, "team-3-sign-in-code");
    await page.getByLabel("Код", { exact: true }).fill(await owner.app!.code());
    await page.getByRole("button", { name: "Войти" }).click();
    await heading(page, "Обзор").waitFor(WAIT);
  });

  test("inviting is sensitive: the code is asked again, then the link is shown once and mailed", async () => {
    await page.getByRole("link", { name: "Команда" }).click();
    await heading(page, "Команда").waitFor(WAIT);
    const form = page.locator("#invites");
    await form.getByLabel("Email").fill(accountant.email);
    await form.getByLabel("Роль").selectOption({ label: "Бухгалтер" });
    await outlastReauthWindow();
    await page.getByRole("button", { name: "Пригласить" }).click();
    await heading(page, "Подтвердите, что это вы").waitFor(WAIT);
    await screenshot(page, "team-4-confirm-sensitive-action");
    await page.getByLabel("Код", { exact: true }).fill(await owner.app!.code());
    await page.getByRole("button", { name: "Подтвердить и продолжить" }).click();

    await page.getByText(`Приглашение для ${accountant.email}: ссылка показывается один раз`).waitFor(WAIT);
    expect(await bodyText(page)).toContain("Письмо с этой ссылкой отправлено.");
    const shown = await page.locator("#secret-value").textContent();
    const mail = await smtp.mailTo(accountant.email);
    expect(inviteLinkIn(mail.text ?? "")).toBe(shown!);
    await screenshot(page, "team-5-invited");
    await page.reload();
    expect(await bodyText(page)).not.toContain(shown!);
  });

  test("the accountant opens the mailed link, sets a password and sees only the accountant's pages", async () => {
    const { page: theirs, errors: theirErrors } = await newPage();
    const link = inviteLinkIn((await smtp.mailTo(accountant.email)).text ?? "")!;
    await theirs.goto(`${dashboard}${new URL(link).pathname}${new URL(link).search}`);
    await heading(theirs, "Приглашение в команду").waitFor(WAIT);
    expect(await bodyText(theirs)).toContain(`${owner.email} приглашает вас в команду кабинета с ролью «Бухгалтер»`);
    await screenshot(theirs, "team-6-accept-invitation");
    await theirs.getByLabel("Пароль").fill(MEMBER_PASSWORD);
    await theirs.getByRole("button", { name: "Принять и войти" }).click();
    await heading(theirs, "Обзор").waitFor(WAIT);

    const nav = theirs.getByRole("navigation", { name: "payaccept · Кабинет" });
    expect(await nav.getByRole("link", { name: "Баланс" }).count()).toBe(1);
    expect(await nav.getByRole("link", { name: "Команда" }).count()).toBe(0);
    await theirs.goto(`${dashboard}/team`);
    await heading(theirs, "Нет доступа").waitFor(WAIT);
    expect(await bodyText(theirs)).toContain("Ваша роль — «Бухгалтер» — не позволяет открыть эту страницу");
    await screenshot(theirs, "team-7-accountant-forbidden");
    await theirs.goto(`${dashboard}/balance`);
    await heading(theirs, "Баланс").waitFor(WAIT);
    expect(await theirs.getByRole("button", { name: /Вывести/ }).count()).toBe(0);
    expect(theirErrors.filter((e) => !e.includes("403"))).toEqual([]);

    // The owner makes them support: their next page is the sign-in.
    await page.goto(`${dashboard}/team`);
    const row = page.locator(`tr[data-member="${accountant.email}"]`);
    await row.getByLabel("Роль").selectOption({ label: "Поддержка" });
    await outlastReauthWindow();
    await row.getByRole("button", { name: "Изменить роль" }).click();
    await heading(page, "Подтвердите, что это вы").waitFor(WAIT);
    // A recovery code stands in for the app, once.
    await page.getByLabel("Код", { exact: true }).fill(owner.recoveryCodes[0]!);
    await page.getByRole("button", { name: "Подтвердить и продолжить" }).click();
    await page.getByText("Роль изменена; сеансы участника завершены.").waitFor(WAIT);
    expect(await page.locator(`tr[data-member="${accountant.email}"] .role`).textContent()).toBe("Поддержка");
    await screenshot(page, "team-8-role-changed");

    // The owner reads it in the audit log: who, in which role, before → after (the entry arrives through the AUDIT stream).
    await page.getByRole("navigation", { name: "payaccept · Кабинет" }).getByRole("link", { name: "Журнал" }).click();
    await heading(page, "Журнал действий").waitFor(WAIT);
    const entry = page.locator("tbody tr", { hasText: "Роль изменена" }).filter({ hasText: accountant.email });
    for (let i = 0; i < 50 && (await entry.count()) === 0; i++) await page.reload();
    expect(await entry.first().textContent()).toContain(`${owner.email} (Владелец)`);
    await screenshot(page, "team-8b-audit-role-changed");

    await theirs.goto(`${dashboard}/balance`);
    await heading(theirs, "Вход в кабинет").waitFor(WAIT);
    // The wrong code and the confirmation pages answer 401, as a wrong password does; nothing else failed.
    expect(errors.filter((e) => !e.includes("status of 401"))).toEqual([]);
  });

  test("the team and account pages fit a phone", async () => {
    const { page: phone } = await newPage(PHONE);
    await phone.goto(`${dashboard}/login`);
    await phone.getByLabel("Email").fill(owner.email);
    await phone.getByLabel("Пароль").fill(OWNER_PASSWORD);
    await phone.getByRole("button", { name: "Войти" }).click();
    await phone.getByLabel("Код", { exact: true }).fill(await owner.app!.code());
    await phone.getByRole("button", { name: "Войти" }).click();
    await heading(phone, "Обзор").waitFor(WAIT);
    for (const [path, title] of [
      ["/team", "Команда"],
      ["/account", "Учётная запись"],
    ] as const) {
      await phone.goto(`${dashboard}${path}`);
      await heading(phone, title).waitFor(WAIT);
      expect(await fitsWidth(phone)).toBe(true);
      await screenshot(phone, `team-9-phone${path.replace("/", "-")}`);
    }
  });
});
