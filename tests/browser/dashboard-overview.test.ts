import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { rpcs, type Payment } from "@payaccept/contracts";
import type { Browser, BrowserContext, BrowserContextOptions, Page } from "playwright-core";
import { startReceiver, type Receiver } from "../../services/webhook-dispatcher/test-support/receiver.ts";
import { DashboardClient, uniqueEmail } from "../dashboard-client.ts";
import { eventually, Stack } from "../harness/stack.ts";
import { DESKTOP, fitsWidth, launchBrowser, PHONE, rub, screenshot, signedInDashboard } from "./browser.ts";
import { createPayment, paidInSandbox } from "./shop-fixtures.ts";

// A real browser against the whole real stack; bounded all the same.
setDefaultTimeout(120_000);

/**
 * The overview, the payments list and the delivery log in Debian's chromium, on seeded data whose
 * figures are known: the numbers in the page and in the SVG charts must be exactly those. Desktop
 * (1280×800) and phone (390×844); screenshots go to tests/artifacts/overview-*.png.
 */

const WAIT = { timeout: 20_000 };
const PASSWORD = "correct horse battery";
const DESKTOP_800: BrowserContextOptions = { ...DESKTOP, viewport: { width: 1280, height: 800 } };

let stack: Stack;
let browser: Browser;
let healthy: Receiver;
let broken: Receiver;
let dashboard: string;
const contexts: BrowserContext[] = [];
const email = uniqueEmail("overview");
let coffee: { shopId: string; apiKey: string };
let tea: { shopId: string; apiKey: string };
const coffeePayments: Payment[] = [];

beforeAll(async () => {
  [stack, browser] = await Promise.all([Stack.start({ env: { TRUSTED_PROXIES: "127.0.0.1" } }), launchBrowser()]);
  healthy = startReceiver();
  broken = startReceiver(() => new Response("down for maintenance", { status: 500 }));
  dashboard = stack.url("dashboard");

  const merchant = DashboardClient.of(stack);
  await merchant.signUp(email, PASSWORD);
  coffee = await merchant.createShop("Кофейня «Зерно»");
  tea = await merchant.createShop("Чайная");
  await merchant.submit(`/shops/${coffee.shopId}/webhook`, `/shops/${coffee.shopId}/webhook/url`, { webhookUrl: healthy.url });
  await merchant.submit(`/shops/${tea.shopId}/webhook`, `/shops/${tea.shopId}/webhook/url`, { webhookUrl: broken.url });

  // Coffee: 3 paid by SBP (one refunded in part), 1 paid by card and refunded, 1 declined card, 2 not paid yet.
  coffeePayments.push(
    await paidInSandbox(stack, coffee.apiKey, { orderId: "C-1", amountKopecks: 100_000 }, "SBP"),
    await paidInSandbox(stack, coffee.apiKey, { orderId: "C-2", amountKopecks: 250_050 }, "SBP"),
    await paidInSandbox(stack, coffee.apiKey, { orderId: "C-3", amountKopecks: 30_000 }, "SBP"),
    await paidInSandbox(stack, coffee.apiKey, { orderId: "C-4", amountKopecks: 70_000 }, "CARD"),
    await paidInSandbox(stack, coffee.apiKey, { orderId: "C-5", amountKopecks: 55_000 }, "CARD", "FAILED"),
    await createPayment(stack, coffee.apiKey, { orderId: "C-6", amountKopecks: 12_300, description: "Капучино" }),
    await createPayment(stack, coffee.apiKey, { orderId: "C-7", amountKopecks: 4_500, description: "Эспрессо" }),
  );
  // C-4 refunded in full (REFUNDED), C-2 in part (stays paid): two refunds, 700,00 + 500,00.
  await stack.call(rpcs.payments.refund, { shopId: coffee.shopId, id: coffeePayments[3]!.id });
  await stack.call(rpcs.payments.refund, { shopId: coffee.shopId, id: coffeePayments[1]!.id, amountKopecks: 50_000 });
  // Tea: 1 paid by SBP, whose webhook the broken endpoint refuses.
  await paidInSandbox(stack, tea.apiKey, { orderId: "T-1", amountKopecks: 10_000 }, "SBP");

  // Every webhook has had its first attempt: coffee's 6 delivered, tea's 1 failing.
  await eventually(async () => {
    const { shops } = await stack.call(rpcs.webhooks.health, { shopIds: [coffee.shopId, tea.shopId], fromDay: "2020-01-01", toDay: "2100-01-01" });
    const sum = (k: "firstAttempt" | "retrying") => shops.reduce((n, s) => n + s[k], 0);
    return sum("firstAttempt") === 6 && sum("retrying") === 1;
  }, 30_000, 200);
});

afterAll(async () => {
  for (const c of contexts) await c.close();
  await browser?.close();
  healthy?.stop();
  broken?.stop();
  await stack?.stop();
});

const signedIn = (options: BrowserContextOptions) => signedInDashboard(browser, contexts, { dashboard, email, password: PASSWORD }, options);

const innerText = (page: Page, selector: string) => page.locator(selector).innerText();
/** The values the SVG bars were drawn from, oldest day first. */
const barValues = (page: Page, chart: string) => page.locator(`#${chart} rect.bar`).evaluateAll((rects) => rects.map((r) => Number(r.getAttribute("data-value"))));
/** Order numbers of the payments table, top to bottom. */
const listedOrders = (page: Page) => page.locator("table.payments tbody tr td:nth-child(2)").allInnerTexts();

for (const [size, options] of [
  ["desktop", DESKTOP_800],
  ["phone", PHONE],
] as const) {
  describe(`on a ${size}`, () => {
    let page: Page;
    let errors: string[];

    beforeAll(async () => {
      ({ page, errors } = await signedIn(options));
    });

    test("the overview is the landing page; its figures and charts are the seeded ones, for all shops and for one", async () => {
      // All shops: coffee's 4 paid (one refunded later) and tea's 1.
      expect(await innerText(page, "#kpi-turnover")).toBe(rub(100_000 + 250_050 + 30_000 + 70_000 + 10_000));
      expect(await innerText(page, "#kpi-paid")).toBe("5");
      expect(await innerText(page, "#kpi-refunds")).toBe(rub(120_000));
      expect(await page.locator("body").innerText()).toContain("из 8 созданных");
      const turnover = await barValues(page, "chart-turnover");
      expect(turnover).toHaveLength(30);
      expect(turnover.at(-1)).toBe(460_050);
      expect(turnover.slice(0, -1).every((v) => v === 0)).toBe(true);
      expect((await barValues(page, "chart-count")).at(-1)).toBe(5);
      expect(await page.locator("#chart-turnover rect.bar").last().locator("title").textContent()).toContain(rub(460_050));
      const body = await page.locator("main").innerText();
      expect(body).toContain("100\u00a0% (4 из 4)");
      expect(body).toContain("50\u00a0% (1 из 2)");
      expect(body).toContain("С первой попытки");
      expect(body).toContain("86\u00a0% (6 из 7)");
      const failing = page.locator("table.failing tbody tr");
      expect(await failing.count()).toBe(1);
      expect(await failing.innerText()).toContain("Чайная");
      expect(await failing.innerText()).toContain("HTTP 500");
      if (size === "phone") expect(await fitsWidth(page)).toBe(true);
      await screenshot(page, `overview-${size}-1-all-shops`);

      await page.getByLabel("Магазин").selectOption({ label: "Кофейня «Зерно»" });
      await page.getByRole("button", { name: "Показать", exact: true }).click();
      await page.waitForURL(/shop=/);
      expect(await innerText(page, "#kpi-turnover")).toBe(rub(450_050));
      expect(await innerText(page, "#kpi-paid")).toBe("4");
      expect(await innerText(page, "#kpi-refunds")).toBe(rub(120_000));
      expect(await page.locator("main").innerText()).toContain("2 возврата");
      expect(await page.locator("main").innerText()).toContain("100\u00a0% (6 из 6)");
      expect(await page.locator("main").innerText()).toContain("Ошибок доставки нет.");
      await page.getByRole("link", { name: "7 дней" }).click();
      await page.waitForURL(/from=/);
      expect(await barValues(page, "chart-turnover")).toHaveLength(7);
      expect(await innerText(page, "#kpi-turnover")).toBe(rub(450_050));
      await screenshot(page, `overview-${size}-2-one-shop-7-days`);

      await page.getByRole("link", { name: "English" }).click();
      await page.getByRole("heading", { level: 1, name: "Overview" }).waitFor(WAIT);
      expect(await innerText(page, "#kpi-turnover")).toBe("₽4,500.50");
      expect(await page.locator("main").innerText()).toContain("50% (1 of 2)");
      await screenshot(page, `overview-${size}-2-en`);
      await page.getByRole("link", { name: "Русский" }).click();
      await page.getByRole("heading", { level: 1, name: "Обзор" }).waitFor(WAIT);
      expect(errors).toEqual([]);
    });

    test("payments: newest first, sorted by amount both ways, filtered by status with the filtered totals", async () => {
      await page.goto(`${dashboard}/shops/${coffee.shopId}/payments`);
      await page.locator("table.payments").waitFor(WAIT);
      expect(await listedOrders(page)).toEqual(["C-7", "C-6", "C-5", "C-4", "C-3", "C-2", "C-1"]);
      // Of the seven, C-1…C-4 were paid (C-4 refunded since); the declined and unpaid ones add nothing.
      expect(await page.locator("main").innerText()).toContain(`Найдено: 7 платежей · оплачено 4 на ${rub(100_000 + 250_050 + 30_000 + 70_000)}`);
      expect(await page.locator("main").innerText()).toContain("Капучино");
      await screenshot(page, `overview-${size}-3-payments-newest-first`);

      if (size === "desktop") {
        await page.getByRole("link", { name: "Сумма" }).click();
        await page.waitForURL(/sort=amount_desc/);
        expect((await listedOrders(page)).slice(0, 2)).toEqual(["C-2", "C-1"]);
        await page.getByRole("link", { name: "Сумма ↓" }).click();
        await page.waitForURL(/sort=amount_asc/);
        expect((await listedOrders(page)).slice(0, 2)).toEqual(["C-7", "C-6"]);
      } else {
        // The table headings are hidden on a phone; the form's order does the same (the form is folded there).
        await page.locator("details.filter-fold > summary").click();
        await page.getByLabel("Порядок").selectOption({ label: "Сначала крупные" });
        await page.getByRole("button", { name: "Показать", exact: true }).click();
        await page.waitForURL(/sort=amount_desc/);
        expect((await listedOrders(page)).slice(0, 2)).toEqual(["C-2", "C-1"]);
      }
      if (size === "phone") await page.locator("details.filter-fold > summary").click();
      await page.getByLabel("Оплачен", { exact: true }).check();
      await page.getByRole("button", { name: "Показать", exact: true }).click();
      await page.waitForURL(/status=SUCCESS/);
      expect(await page.locator("main").innerText()).toContain(`Найдено: 3 платежа · оплачено 3 на ${rub(380_050)}`);
      expect(await page.locator("table.payments tbody tr").count()).toBe(3);
      if (size === "phone") expect(await fitsWidth(page)).toBe(true);
      await screenshot(page, `overview-${size}-4-payments-paid-by-amount`);

      // C-2, refunded in part: its refund with the time, and the history.
      await page.getByRole("link", { name: "C-2" }).click();
      await page.locator("table.refunds").waitFor(WAIT);
      const refundRow = await page.locator("table.refunds tbody tr").innerText();
      expect(refundRow).toContain(rub(50_000));
      expect(refundRow).toContain("Проведён");
      expect(refundRow).toMatch(/\d\d:\d\d\sМСК/);
      expect(await page.locator("ol.history").innerText()).toMatch(/Создан[\s\S]*Оплачен/);
      if (size === "phone") expect(await fitsWidth(page)).toBe(true);
      await screenshot(page, `overview-${size}-4b-payment-refunded-in-part`);
    });

    test("the delivery log filters down to the failing delivery, in a compact table", async () => {
      await page.goto(`${dashboard}/shops/${tea.shopId}/webhook`);
      await page.getByLabel("Только с ошибками").check();
      await page.getByRole("button", { name: "Показать", exact: true }).click();
      await page.waitForURL(/failed=1/);
      const rows = page.locator("tr.delivery");
      expect(await rows.count()).toBe(1);
      expect(await rows.innerText()).toContain("T-1");
      expect(await rows.innerText()).toContain("HTTP 500");
      expect(await rows.innerText()).toMatch(/\d\d:\d\d\sМСК/);
      await page.getByLabel("Событие").selectOption({ label: "Отменён" });
      await page.getByRole("button", { name: "Показать", exact: true }).click();
      await page.waitForURL(/status=CANCELED/);
      expect(await rows.count()).toBe(0);
      await page.goto(`${dashboard}/shops/${coffee.shopId}/webhook`);
      expect(await rows.count()).toBe(6);
      if (size === "phone") expect(await fitsWidth(page)).toBe(true);
      await screenshot(page, `overview-${size}-5-delivery-log`);
    });

    test("a t.me return link is saved (the inputs accept what the API accepts)", async () => {
      await page.goto(`${dashboard}/shops/${coffee.shopId}`);
      // The card has more than one form (settings, receipts): this is the settings one.
      const settings = page.locator(`form[action="/shops/${coffee.shopId}/settings"]`);
      const link = `t.me/zerno_bot?start=${size}`;
      await page.getByLabel("Ссылка после успешной оплаты").fill(link);
      await settings.getByRole("button", { name: "Сохранить" }).click();
      await page.getByText("Сохранено.").waitFor(WAIT);
      expect(await page.getByLabel("Ссылка после успешной оплаты").inputValue()).toBe(link);
      await page.getByLabel("Ссылка после неудачной оплаты").fill("http://shop.example/fail");
      await settings.getByRole("button", { name: "Сохранить" }).click();
      await page.getByText("нужна ссылка https://, t.me/… или tg://…").waitFor(WAIT);
      await screenshot(page, `overview-${size}-6-return-link-refused`);
    });
  });
}
