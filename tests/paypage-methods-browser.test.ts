import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Browser, BrowserContext, Locator, Page } from "playwright-core";
import { MAX_AMOUNT_KOPECKS, rpcs } from "@payaccept/contracts";
import { Stack, type ShopCreated, STACK_START_MS } from "./harness/stack.ts";
import { collectPageErrors, DESKTOP, launchBrowser, PHONE, screenshot } from "./browser/browser.ts";
import { createPayment, statusOf } from "./browser/shop-fixtures.ts";
import { formatMoscowLong } from "@payaccept/web-ui";
import { shortReference } from "../services/paypage/src/short-reference.ts";

// Real processes and a real browser take longer than bun's 5 s default; bounded all the same.
setDefaultTimeout(60_000);

/**
 * The payment page's methods in a real browser against the whole stack: the method marks, switching
 * method (also from a second tab), the success receipt, the bank-app button only on phones and an
 * amount that never wraps. Screenshots go to tests/artifacts/paypage-methods-*.png.
 */

const WAIT = { timeout: 20_000 };
const SIZES = { desktop: DESKTOP, phone: PHONE } as const;

let stack: Stack;
let browser: Browser;
let live: ShopCreated;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  // A switch made in another tab is no payment event: the open page sees it on the stream's re-read.
  [stack, browser] = await Promise.all([Stack.start({ env: { PAYPAGE_STATUS_RECHECK: "1s" } }), launchBrowser()]);
  live = await stack.createShop({ name: "Чайная лавка", sandbox: false, methods: ["SBP", "CARD"] });
}, STACK_START_MS);

afterAll(async () => {
  for (const c of contexts) await c.close();
  await browser?.close();
  await stack?.stop();
});

async function newContext(options = DESKTOP): Promise<BrowserContext> {
  const context = await browser.newContext(options);
  contexts.push(context);
  return context;
}

async function openPage(options = DESKTOP): Promise<{ page: Page; errors: string[] }> {
  const page = await (await newContext(options)).newPage();
  return { page, errors: collectPageErrors(page) };
}

const heading = (page: Page, name: string) => page.getByRole("heading", { level: 1, name });
const shot = (page: Page, name: string) => screenshot(page, `paypage-methods-${name}`);

async function payByCard(page: Page, pan: string): Promise<void> {
  await page.getByLabel("Номер карты").fill(pan);
  await page.getByLabel("Срок действия (ММ/ГГ)").fill("12/30");
  await page.getByLabel("CVC/CVV").fill("123");
  await page.getByRole("button", { name: /^Оплатить \d/ }).click();
}

/** How many lines the element's text takes, as laid out by the browser. */
const lineCount = (el: Locator) =>
  el.evaluate((node) => {
    const range = document.createRange();
    range.selectNodeContents(node);
    return new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top))).size;
  });

/** A mark is drawn: an inline SVG with a real size on screen. */
async function expectMark(scope: Locator, mark: string): Promise<void> {
  const box = await scope.locator(`svg[data-mark="${mark}"]`).boundingBox();
  expect(box?.width ?? 0).toBeGreaterThan(20);
  expect(box?.height ?? 0).toBeGreaterThan(15);
}

describe("the payment page's methods", () => {
  for (const [size, options] of Object.entries(SIZES)) {
    test(`${size}: the choice shows the SBP mark and the Mir, Visa and Mastercard marks`, async () => {
      const p = await createPayment(stack, live.apiKey);
      const { page, errors } = await openPage(options);
      await page.goto(p.payUrl);
      await heading(page, "Выберите способ оплаты").waitFor(WAIT);
      const sbp = page.getByRole("button", { name: /СБП/ });
      const card = page.getByRole("button", { name: "Банковская карта" });
      await expectMark(sbp, "sbp");
      for (const mark of ["mir", "visa", "mastercard"]) await expectMark(card, mark);
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      await shot(page, `${size}-1-choice`);
      expect(errors).toEqual([]);
    });
  }

  test("desktop: the QR page has no bank-app button; switching to card and paying ends on a receipt with Moscow time and a reference", async () => {
    const p = await createPayment(stack, live.apiKey, { description: "Улун «Те Гуань Инь», 250 г" });
    const { page, errors } = await openPage(DESKTOP);
    await page.goto(p.payUrl);
    await page.getByRole("button", { name: /СБП/ }).click();
    await heading(page, "Оплата через СБП").waitFor(WAIT);
    expect(await page.getByRole("img", { name: "QR-код для оплаты через СБП" }).isVisible()).toBe(true);
    // On a desktop there is no bank app to open: the link is not shown at all.
    expect(await page.getByRole("link", { name: "Открыть приложение банка" }).count()).toBe(0);
    expect(await page.locator(".deeplink").isVisible()).toBe(false);
    await shot(page, "desktop-2-qr");

    await page.getByRole("button", { name: "Оплатить картой" }).click();
    await heading(page, "Оплата картой").waitFor(WAIT);
    await expectMark(page.locator(".accepted"), "visa");
    expect(await page.getByRole("button", { name: "Оплатить через СБП" }).isVisible()).toBe(true);
    await shot(page, "desktop-3-switched-to-card");

    await payByCard(page, "4111 1111 1111 1111");
    await heading(page, "Оплата прошла").waitFor(WAIT);
    const paid = await stack.call(rpcs.payments.get, { shopId: live.shopId, id: p.id });
    expect(paid).toMatchObject({ status: "SUCCESS", method: "CARD" });
    const receipt = page.locator(".receipt");
    expect(await receipt.locator("time.paid-at").textContent()).toBe(formatMoscowLong(paid.paidAt!, "ru"));
    expect(await receipt.locator("time.paid-at").textContent()).toMatch(/^\d{1,2} [а-я]+ \d{4} г\. в \d{2}:\d{2} МСК$/);
    expect(await receipt.locator(".reference").textContent()).toBe(shortReference(p.id));
    expect(await receipt.locator(".order").textContent()).toBe(p.orderId);
    expect(await receipt.getByText("Банковская карта").isVisible()).toBe(true);
    await shot(page, "desktop-4-receipt");
    expect(errors).toEqual([]);
  });

  for (const [size, options] of Object.entries(SIZES)) {
    test(`${size}: a second tab picking card after SBP started switches to card, and the first tab follows with a word of why`, async () => {
      const p = await createPayment(stack, live.apiKey);
      const context = await newContext(options);
      const first = await context.newPage();
      const second = await context.newPage();
      const errors = [...collectPageErrors(first), ...collectPageErrors(second)];
      // The second tab does not follow the status (its live stream refused, as on a flaky network),
      // so it still offers the choice however long the first tab's start takes on a loaded machine.
      await second.route("**/pay/*/events", (route) => route.abort());
      await first.goto(p.payUrl);
      await second.goto(p.payUrl);
      await first.getByRole("button", { name: /СБП/ }).click();
      await heading(first, "Оплата через СБП").waitFor(WAIT);
      const qrPayload = await first.getByRole("img", { name: "QR-код для оплаты через СБП" }).getAttribute("data-qr-payload");

      // The second tab still shows the choice it loaded before the first tab started.
      await second.getByRole("button", { name: "Банковская карта" }).click();
      await heading(second, "Оплата картой").waitFor(WAIT);
      expect(await second.locator(".notice").count()).toBe(0);
      await shot(second, `${size}-second-tab-1-card`);

      await heading(first, "Оплата картой").waitFor(WAIT);
      expect(await first.locator(".notice").textContent()).toBe("Способ оплаты сменили — например, в другой вкладке. Продолжите оплату здесь.");
      await shot(first, `${size}-second-tab-2-first-tab-followed`);

      // The QR the first tab showed can no longer be paid.
      const bank = await context.newPage();
      await bank.goto(qrPayload!);
      expect(await bank.getByText("Этот QR-код больше не действует").isVisible()).toBe(true);
      expect(await bank.getByRole("button", { name: "Оплатить" }).count()).toBe(0);
      await shot(bank, `${size}-second-tab-3-old-qr`);
      expect(await statusOf(stack, live.apiKey, p.id)).toBe("PENDING");
      expect(errors).toEqual([]);
    });
  }

  test("phone: the QR page has the bank-app button first, 100 000 000,00 ₽ stays on one line, and paying in the bank app ends on the receipt", async () => {
    const p = await createPayment(stack, live.apiKey, { method: "SBP", amountKopecks: MAX_AMOUNT_KOPECKS });
    const { page, errors } = await openPage(PHONE);
    await page.goto(p.payUrl);
    await heading(page, "Оплата через СБП").waitFor(WAIT);
    const amount = page.locator(".summary .amount");
    expect(await amount.textContent()).toBe("100\u202F000\u202F000,00\u00A0₽");
    expect(await lineCount(amount)).toBe(1);
    expect((await amount.boundingBox())!.x + (await amount.boundingBox())!.width).toBeLessThanOrEqual(390);
    const deepLink = page.getByRole("link", { name: "Открыть приложение банка" });
    expect(await deepLink.isVisible()).toBe(true);
    expect((await deepLink.boundingBox())!.y).toBeLessThan((await page.getByRole("img", { name: "QR-код для оплаты через СБП" }).boundingBox())!.y);
    // a merchant-fixed method offers no switch
    expect(await page.locator(".switch").count()).toBe(0);
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await shot(page, "phone-2-qr-max-amount");

    const bank = await page.context().newPage();
    await bank.goto((await deepLink.getAttribute("href"))!);
    await bank.getByRole("button", { name: "Оплатить" }).click();
    await heading(page, "Оплата прошла").waitFor(WAIT);
    expect(await page.locator(".receipt .reference").textContent()).toBe(shortReference(p.id));
    expect(await page.locator(".receipt time.paid-at").textContent()).toEndWith(" МСК");
    expect(await lineCount(page.locator(".summary .amount"))).toBe(1);
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await shot(page, "phone-3-receipt");
    expect(errors).toEqual([]);
  });

  test("desktop: the largest amount stays on one line too, and the card pay button does not wrap the ₽", async () => {
    const p = await createPayment(stack, live.apiKey, { method: "CARD", amountKopecks: MAX_AMOUNT_KOPECKS });
    for (const [size, options] of Object.entries(SIZES)) {
      const { page } = await openPage(options);
      await page.goto(p.payUrl);
      await heading(page, "Оплата картой").waitFor(WAIT);
      expect(await lineCount(page.locator(".summary .amount"))).toBe(1);
      expect(await lineCount(page.getByRole("button", { name: /^Оплатить \d/ }))).toBe(1);
      await shot(page, `${size}-5-card-max-amount`);
    }
  });
});
