import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { startReceiver, type Receiver } from "../../services/webhook-dispatcher/test-support/receiver.ts";
import { uniqueEmail } from "../dashboard-client.ts";
import { eventually, Stack } from "../harness/stack.ts";
import { DESKTOP, launchBrowser, openPage, PHONE, screenshot } from "./browser.ts";
import { createPayment } from "./shop-fixtures.ts";

// A real browser against the whole real stack; bounded all the same.
setDefaultTimeout(120_000);

/**
 * A merchant in Debian's chromium: signs up, creates a shop, takes its key, sees an API payment,
 * wires a webhook receiver, tests it, cancels the payment and resends its webhook; then the same
 * pages on a phone. Screenshots go to tests/artifacts/dashboard-*.png.
 */

const WAIT = { timeout: 20_000 };
const PASSWORD = "correct horse battery";

let stack: Stack;
let browser: Browser;
let receiver: Receiver;
let dashboard: string;
const contexts: BrowserContext[] = [];
const account = { email: uniqueEmail("browser"), shopUrl: "", firstKey: "", apiKey: "", orderId: "" };

beforeAll(async () => {
  [stack, browser] = await Promise.all([Stack.start(), launchBrowser()]);
  receiver = startReceiver();
  dashboard = stack.url("dashboard");
});

afterAll(async () => {
  for (const c of contexts) await c.close();
  await browser?.close();
  receiver?.stop();
  await stack?.stop();
});

const newPage = (options = DESKTOP) => openPage(browser, contexts, options);

const API_KEY = /pk_test_[A-Za-z0-9_-]{43}/;
const heading = (page: Page, name: string | RegExp) => page.getByRole("heading", { level: 1, name });
const bodyText = (page: Page) => page.locator("body").innerText();
/** The page must not scroll sideways: everything fits the viewport's width. */
const fitsWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

describe("a merchant in the browser", () => {
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    ({ page, errors } = await newPage());
  });

  test("signs up and creates a sandbox shop; its API key is shown once", async () => {
    await page.goto(dashboard);
    await heading(page, "Вход в кабинет").waitFor(WAIT);
    await screenshot(page, "dashboard-1-sign-in");
    await page.getByRole("link", { name: "Зарегистрироваться" }).click();
    await page.getByLabel("Email").fill(account.email);
    await page.getByLabel("Пароль").fill(PASSWORD);
    await page.getByRole("button", { name: "Зарегистрироваться" }).click();
    // The overview is the landing page; with no shop yet it leads to creating one.
    await heading(page, "Обзор").waitFor(WAIT);
    await page.getByRole("main").getByRole("link", { name: "Новый магазин" }).click();
    await heading(page, "Магазины").waitFor(WAIT);

    await page.getByLabel("Название").fill("Кофейня «Зерно»");
    await page.getByRole("button", { name: "Создать магазин" }).click();
    await heading(page, /Кофейня «Зерно»/).waitFor(WAIT);
    account.shopUrl = new URL(page.url()).pathname;
    const firstKey = (account.firstKey = (await page.locator("#secret-value").textContent())!);
    expect(firstKey).toMatch(API_KEY);
    expect((await stack.api(firstKey, "/v1/balance")).status).toBe(200);
    await screenshot(page, "dashboard-2-shop-created-key-once");

    await page.reload();
    await heading(page, /Кофейня «Зерно»/).waitFor(WAIT);
    expect(await bodyText(page)).not.toMatch(API_KEY);
    expect(await bodyText(page)).toContain(`${firstKey.slice(0, 12)}…`);
  });

  test("issues a new key: shown once, the old one stops working at once", async () => {
    const before = (await page.locator("#api-key code").textContent())!;
    await page.getByRole("button", { name: "Выпустить новый ключ" }).click();
    await page.locator("#secret-value").waitFor(WAIT);
    account.apiKey = (await page.locator("#secret-value").textContent())!;
    expect(account.apiKey).toMatch(API_KEY);
    expect(account.apiKey.slice(0, 12)).not.toBe(before.slice(0, 12));
    expect((await stack.api(account.apiKey, "/v1/balance")).status).toBe(200);
    await eventually(async () => (await stack.api(account.firstKey, "/v1/balance")).status === 401);

    await page.reload();
    expect(await bodyText(page)).not.toContain(account.apiKey);
  });

  test("sees a payment created with the key over the real API in the list", async () => {
    const payment = await createPayment(stack, account.apiKey, { orderId: "A-1001", amountKopecks: 123_456 });
    account.orderId = payment.orderId;
    await page.getByRole("link", { name: "Платежи" }).click();
    await page.getByRole("link", { name: "A-1001" }).waitFor(WAIT);
    expect(await page.locator("table.payments tbody tr").first().innerText()).toContain("1\u202F234,56\u00A0₽");
    expect(await bodyText(page)).toContain("Найдено: 1");
    await screenshot(page, "dashboard-3-payments");
  });

  test("sets the webhook URL and sends a test webhook: the receiver's code is shown", async () => {
    await page.getByRole("link", { name: "Вебхук" }).click();
    await page.getByLabel("URL вебхука").fill(receiver.url);
    await page.getByRole("button", { name: "Сохранить" }).click();
    await page.getByText("Сохранено.").waitFor(WAIT);

    await page.getByRole("button", { name: "Отправить тестовый вебхук" }).click();
    await page.locator(".test-result").waitFor(WAIT);
    expect(await page.locator(".test-result").textContent()).toMatch(/^Ваш сервер ответил HTTP 200 за \d+ мс\.$/);
    expect(JSON.parse(receiver.requests.at(-1)!.body)).toMatchObject({ test: true });

    await page.getByRole("button", { name: "Показать секрет" }).click();
    expect(await page.locator("#secret-value").textContent()).toMatch(/^whsec_/);
    await screenshot(page, "dashboard-4-webhook-test-and-secret");
  });

  test("cancels the payment from its page, sees the CANCELED delivery in the log and resends it", async () => {
    await page.getByRole("link", { name: "Платежи" }).click();
    await page.getByRole("link", { name: account.orderId }).click();
    await heading(page, /Кофейня/).waitFor(WAIT);
    await screenshot(page, "dashboard-5-payment-detail");
    await page.getByRole("link", { name: "Отменить платёж" }).click();
    await page.getByRole("button", { name: "Да, отменить" }).click();
    await page.getByText("Платёж отменён.").waitFor(WAIT);

    await page.getByRole("link", { name: "Вебхук" }).click();
    const delivery = page.locator("tr.delivery", { hasText: account.orderId });
    await eventually(async () => {
      await page.reload();
      return (await delivery.count()) === 1 && (await delivery.innerText()).includes("Доставлен");
    }, 20_000, 250);
    expect(await delivery.innerText()).toContain("Отменён");
    const canceledBodies = () => receiver.requests.filter((r) => JSON.parse(r.body).status === "CANCELED").map((r) => r.body);
    expect(canceledBodies()).toHaveLength(1);
    await screenshot(page, "dashboard-6-delivery-log");

    await delivery.getByRole("button", { name: "Отправить ещё раз" }).click();
    await page.getByText("Вебхук поставлен в очередь на повторную отправку.").waitFor(WAIT);
    const resent = await eventually(() => canceledBodies().length === 2 && canceledBodies());
    expect(resent[1]).toBe(resent[0]!);
    await eventually(async () => {
      await page.reload();
      // The attempts are folded in a <details>: its text is in the page, though not rendered.
      return (await delivery.textContent())!.includes("Повтор 1, попытка 1");
    }, 20_000, 250);
  });

  test("a cross-site form without the CSRF token is refused with 403 and changes nothing", async () => {
    // Another origin on the same host: same-site, so the Lax cookie travels; only the token stops it.
    const attacker = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: () =>
        new Response(
          `<!doctype html><form id="f" method="post" action="${dashboard}${account.shopUrl}/key"></form><script>document.getElementById("f").submit()</script>`,
          { headers: { "Content-Type": "text/html" } },
        ),
    });
    try {
      const response = page.waitForResponse((r) => r.url().endsWith(`${account.shopUrl}/key`));
      await page.goto(`http://127.0.0.1:${attacker.port}/`);
      expect((await response).status()).toBe(403);
      await heading(page, "Форма устарела").waitFor(WAIT);
      await screenshot(page, "dashboard-7-forged-post-403");
    } finally {
      attacker.stop(true);
    }
    expect((await stack.api(account.apiKey, "/v1/balance")).status).toBe(200);
  });

  test("shows the balance, and switches to English", async () => {
    await page.goto(`${dashboard}/balance`);
    await heading(page, "Баланс").waitFor(WAIT);
    expect(await bodyText(page)).toContain("Деньги за оплаты дня становятся доступны к выводу на следующий день в 12:00 МСК.");
    await page.getByRole("link", { name: "English" }).click();
    await heading(page, "Balance").waitFor(WAIT);
    await screenshot(page, "dashboard-8-balance-en");
    await page.getByRole("link", { name: "Русский" }).click();
    await heading(page, "Баланс").waitFor(WAIT);
    // CSP violations and script errors would be here (the attacker's page is a different document).
    expect(errors.filter((e) => !e.includes("403"))).toEqual([]);
  });
});

describe("on a phone", () => {
  test("every page fits the screen and reads as a list", async () => {
    const { page, errors } = await newPage(PHONE);
    await page.goto(`${dashboard}/login`);
    await page.getByLabel("Email").fill(account.email);
    await page.getByLabel("Пароль").fill(PASSWORD);
    await page.getByRole("button", { name: "Войти" }).click();
    await heading(page, "Обзор").waitFor(WAIT);
    expect(await fitsWidth(page)).toBe(true);
    await screenshot(page, "dashboard-phone-0-overview");

    for (const [path, name] of [
      ["/shops", "shops"],
      [account.shopUrl, "shop"],
      [`${account.shopUrl}/payments`, "payments"],
      [`${account.shopUrl}/webhook`, "webhook"],
      ["/balance", "balance"],
    ] as const) {
      await page.goto(`${dashboard}${path}`);
      await page.locator("h1").waitFor(WAIT);
      expect({ path, fits: await fitsWidth(page) }).toEqual({ path, fits: true });
      await screenshot(page, `dashboard-phone-${name}`);
    }
    expect(await page.locator("table.payouts, p.muted").first().isVisible()).toBe(true);
    expect(errors).toEqual([]);
  });
});
