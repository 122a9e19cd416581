import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { rpcs } from "@payaccept/contracts";
import { eventually, Stack, type ShopCreated, STACK_START_MS } from "./harness/stack.ts";
import { collectPageErrors, DESKTOP, launchBrowser, PHONE, screenshot } from "./browser/browser.ts";
import { scanQr } from "./browser/qr.ts";
import { cancelPayment, createPayment, statusOf } from "./browser/shop-fixtures.ts";

// Real processes (and a real browser) take longer than bun's 5 s default; bounded all the same.
setDefaultTimeout(60_000);

/**
 * A buyer in a real browser (Debian's chromium) against the whole real stack: payments, the
 * acquirer emulator, gateway and directory. Screenshots go to tests/artifacts/.
 */

const WAIT = { timeout: 20_000 };

let stack: Stack;
let browser: Browser;
let sandbox: ShopCreated;
let live: ShopCreated;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  [stack, browser] = await Promise.all([Stack.start(), launchBrowser()]);
  sandbox = await stack.createShop({ name: "Кофейня «Зерно»", sandbox: true, methods: ["SBP", "CARD"] });
  live = await stack.createShop({ name: "Чайная лавка", sandbox: false, methods: ["SBP", "CARD"] });
}, STACK_START_MS);

afterAll(async () => {
  for (const c of contexts) await c.close();
  await browser?.close();
  await stack?.stop();
});

async function openPage(options = DESKTOP): Promise<{ page: Page; errors: string[] }> {
  const context = await browser.newContext(options);
  contexts.push(context);
  const page = await context.newPage();
  return { page, errors: collectPageErrors(page) };
}

const heading = (page: Page, name: string) => page.getByRole("heading", { level: 1, name });

async function payByCard(page: Page, pan: string): Promise<void> {
  await page.getByLabel("Номер карты").fill(pan);
  await page.getByLabel("Срок действия (ММ/ГГ)").fill("12/30");
  await page.getByLabel("CVC/CVV").fill("123");
  await page.getByLabel("Имя владельца (как на карте)").fill("IVAN PETROV");
  // "Оплатить 1 234,56 ₽", not the switch to "Оплатить через СБП"
  await page.getByRole("button", { name: /^Оплатить \d/ }).click();
}

describe("a buyer in the browser", () => {
  test("pays by SBP in a sandbox shop: chooses SBP, picks success, returns to the shop", async () => {
    const p = await createPayment(stack, sandbox.apiKey, { successUrl: "t.me/coffee_bot?start=paid" });
    const { page, errors } = await openPage();
    await page.goto(p.payUrl);
    expect(await page.getByText("Кофейня «Зерно»").isVisible()).toBe(true);
    expect(await page.locator(".summary .amount").textContent()).toBe("1\u202F234,56\u00A0₽");
    expect(await page.getByText("Тестовый платёж").isVisible()).toBe(true);
    await screenshot(page, "sandbox-1-choose-method");

    await page.getByRole("button", { name: /СБП/ }).click();
    await heading(page, "Оплата через СБП").waitFor(WAIT);
    expect(await page.getByRole("timer").textContent()).toMatch(/Оплатите в течение (20:00|19:[0-5]\d)/);
    expect(await statusOf(stack, sandbox.apiKey, p.id)).toBe("PENDING");
    await screenshot(page, "sandbox-2-pending-outcomes");

    await page.getByRole("button", { name: "Успешная оплата" }).click();
    await heading(page, "Оплата прошла").waitFor(WAIT);
    expect(await page.getByRole("link", { name: "Вернуться в магазин" }).getAttribute("href")).toBe("https://t.me/coffee_bot?start=paid");
    expect(await statusOf(stack, sandbox.apiKey, p.id)).toBe("SUCCESS");
    await screenshot(page, "sandbox-3-success");
    expect(errors).toEqual([]);
  });

  test("pays by card in a live shop through the acquirer, after the page catches a mistyped number", async () => {
    const p = await createPayment(stack, live.apiKey, { method: "CARD", successUrl: "https://shop.example/thanks" });
    const { page, errors } = await openPage();
    await page.goto(p.payUrl);
    // A fixed method starts by itself: the card form appears without a click.
    await heading(page, "Оплата картой").waitFor(WAIT);
    await payByCard(page, "4111 1111 1111 1112");
    expect(await page.getByText("Проверьте номер карты").isVisible()).toBe(true);
    expect(await page.getByLabel("Номер карты").getAttribute("aria-invalid")).toBe("true");
    expect(page.url()).toBe(p.payUrl);
    await screenshot(page, "card-1-luhn-error");

    await payByCard(page, "4111 1111 1111 1111");
    await heading(page, "Оплата прошла").waitFor(WAIT);
    expect(new URL(page.url()).pathname).toBe(`/pay/${p.id}`);
    expect(await page.getByRole("link", { name: "Вернуться в магазин" }).getAttribute("href")).toBe("https://shop.example/thanks");
    expect(await statusOf(stack, live.apiKey, p.id)).toBe("SUCCESS");
    await screenshot(page, "card-2-success");
    expect(errors).toEqual([]);
  });

  test("a declined card ends on the failure screen with the shop's fail link", async () => {
    const p = await createPayment(stack, live.apiKey, { failUrl: "tg://resolve?domain=tea_bot" });
    const { page } = await openPage();
    await page.goto(p.payUrl);
    await page.getByRole("button", { name: "Банковская карта" }).click();
    await payByCard(page, "4000 0000 0000 0002");
    await heading(page, "Оплата не прошла").waitFor(WAIT);
    expect(await page.getByRole("link", { name: "Вернуться в магазин" }).getAttribute("href")).toBe("tg://resolve?domain=tea_bot");
    expect(await statusOf(stack, live.apiKey, p.id)).toBe("FAILED");
    await screenshot(page, "card-3-declined");
  });

  test("a card asking for 3-D Secure pays once the code is confirmed at the bank", async () => {
    const p = await createPayment(stack, live.apiKey, { method: "CARD" });
    const { page } = await openPage();
    await page.goto(p.payUrl);
    await heading(page, "Оплата картой").waitFor(WAIT);
    await payByCard(page, "4000 0000 0000 3220");
    await heading(page, "Подтверждение платежа").waitFor(WAIT);
    await screenshot(page, "card-4-3ds");
    await page.getByLabel("Код из SMS").fill("123456");
    await page.getByRole("button", { name: "Подтвердить" }).click();
    await heading(page, "Оплата прошла").waitFor(WAIT);
    expect(await statusOf(stack, live.apiKey, p.id)).toBe("SUCCESS");
  });

  test("an invoice canceled while the buyer looks at it turns into the canceled screen and cannot be paid", async () => {
    const p = await createPayment(stack, live.apiKey);
    const { page } = await openPage();
    await page.goto(p.payUrl);
    await heading(page, "Выберите способ оплаты").waitFor(WAIT);
    await cancelPayment(stack, live.apiKey, p.id);
    await heading(page, "Счёт отменён").waitFor(WAIT);
    expect(await page.getByText("Этот счёт отменён магазином, оплатить его нельзя.").isVisible()).toBe(true);
    expect(await page.getByRole("button").count()).toBe(0);
    expect(await page.locator("form").count()).toBe(0);
    await screenshot(page, "canceled");
    expect(await statusOf(stack, live.apiKey, p.id)).toBe("CANCELED");
  });

  test("a shop deactivated by an operator: its unpaid invoice says the shop is not accepting payments, with nothing to press", async () => {
    const shop = await stack.createShop({ name: "Закрытая лавка", sandbox: false, methods: ["SBP", "CARD"] });
    const p = await createPayment(stack, shop.apiKey, { failUrl: "https://example.com/fail" });
    await stack.call(rpcs.directory.setActive, { shopId: shop.shopId, active: false });
    const { page, errors } = await openPage(PHONE);
    // Payments learns of the change from the directory's bucket: reload until it has.
    await eventually(async () => {
      await page.goto(p.payUrl);
      return (await heading(page, "Магазин сейчас не принимает оплату").count()) > 0;
    }, 20_000, 200);
    expect(await page.getByText("Деньги не списаны. Попробуйте позже или свяжитесь с магазином.").isVisible()).toBe(true);
    expect(await page.locator("form").count()).toBe(0);
    expect(await page.getByRole("link", { name: "Вернуться в магазин" }).getAttribute("href")).toBe("https://example.com/fail");
    await screenshot(page, "shop-not-accepting");
    expect(errors).toEqual([]);
    // Not final: once the shop is active again, the same link offers the methods.
    await stack.call(rpcs.directory.setActive, { shopId: shop.shopId, active: true });
    await eventually(async () => {
      await page.goto(p.payUrl);
      return (await heading(page, "Выберите способ оплаты").count()) > 0;
    }, 20_000, 200);
    expect(await statusOf(stack, shop.apiKey, p.id)).toBe("CREATED");
  });

  test("on a phone: the bank-app button comes first, the QR code scans to the bank page, nothing overflows", async () => {
    const p = await createPayment(stack, live.apiKey, { method: "SBP", description: "Улун «Те Гуань Инь», 250 г" });
    const { page, errors } = await openPage(PHONE);
    await page.goto(p.payUrl);
    await heading(page, "Оплата через СБП").waitFor(WAIT);
    const deepLink = page.getByRole("link", { name: "Открыть приложение банка" });
    const qr = page.getByRole("img", { name: "QR-код для оплаты через СБП" });
    expect((await deepLink.boundingBox())!.y).toBeLessThan((await qr.boundingBox())!.y);
    const payload = await qr.getAttribute("data-qr-payload");
    expect(await scanQr(qr)).toBe(payload);
    expect(await deepLink.getAttribute("href")).toBe(payload);
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await screenshot(page, "phone-sbp-pending");

    // The phone's bank app: pay there, and the payment page follows by itself.
    const bank = await page.context().newPage();
    await bank.goto(payload!);
    await screenshot(bank, "phone-bank-app");
    await bank.getByRole("button", { name: "Оплатить" }).click();
    await heading(page, "Оплата прошла").waitFor(WAIT);
    expect(await statusOf(stack, live.apiKey, p.id)).toBe("SUCCESS");
    await screenshot(page, "phone-success");
    expect(errors).toEqual([]);
  });

  test("in English on a phone: the switch is remembered and amounts use English notation", async () => {
    const p = await createPayment(stack, sandbox.apiKey);
    const { page } = await openPage(PHONE);
    await page.goto(p.payUrl);
    await page.getByRole("link", { name: "Switch to English" }).click();
    await heading(page, "Choose how to pay").waitFor(WAIT);
    expect(await page.locator(".summary .amount").textContent()).toBe("₽1,234.56");
    await page.getByRole("button", { name: "Bank card" }).click();
    await heading(page, "Pay by card").waitFor(WAIT);
    expect(await page.locator("html").getAttribute("lang")).toBe("en");
    await screenshot(page, "phone-english-sandbox-card");
  });
});
