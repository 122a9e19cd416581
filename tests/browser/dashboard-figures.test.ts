import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { rpcs } from "@payaccept/contracts";
import type { Browser, BrowserContext, BrowserContextOptions, Page } from "playwright-core";
import { startReceiver, type Receiver } from "../../services/webhook-dispatcher/test-support/receiver.ts";
import { DashboardClient, uniqueEmail } from "../dashboard-client.ts";
import { eventually, Stack } from "../harness/stack.ts";
import { DESKTOP, fitsWidth, launchBrowser, PHONE, rub, screenshot, signedInDashboard } from "./browser.ts";
import { cancelPayment, createPayment, paidInSandbox } from "./shop-fixtures.ts";

// A real browser against the whole real stack; bounded all the same.
setDefaultTimeout(120_000);

/**
 * The dashboard's figures as a merchant reads them, walked in Debian's chromium on a desktop and a
 * phone. Found by walking it: the payments list's sum added unpaid, declined and canceled
 * payments; a payment refunded in part read only "Оплачен"; a shop without a webhook URL was an
 * "endpoint with errors" at 0 %; a resend of a delivered webhook lowered the first-attempt share;
 * the delivery log forgot its filter after a resend; on a phone the list began after a screen and
 * a half of filters, seven lines a payment. Screenshots in tests/artifacts/figures-*.png.
 */

const WAIT = { timeout: 30_000 };
const PASSWORD = "correct horse battery";

let stack: Stack;
let browser: Browser;
let receiver: Receiver;
let dashboard: string;
const contexts: BrowserContext[] = [];
const email = uniqueEmail("figures");
let coffee: { shopId: string; apiKey: string };
let bare: { shopId: string; apiKey: string };

/** The dispatcher's figures of both shops, all days. */
const health = async () => {
  const { shops } = await stack.call(rpcs.webhooks.health, { shopIds: [coffee.shopId, bare.shopId], fromDay: "2020-01-01", toDay: "2100-01-01" });
  return { coffee: shops.find((s) => s.shopId === coffee.shopId), bare: shops.find((s) => s.shopId === bare.shopId) };
};

beforeAll(async () => {
  [stack, browser] = await Promise.all([Stack.start({ env: { TRUSTED_PROXIES: "127.0.0.1" } }), launchBrowser()]);
  receiver = startReceiver();
  dashboard = stack.url("dashboard");
  const merchant = DashboardClient.of(stack);
  await merchant.signUp(email, PASSWORD);
  coffee = await merchant.createShop("Кофейня «Зерно»");
  bare = await merchant.createShop("Без вебхуков");
  await merchant.submit(`/shops/${coffee.shopId}/webhook`, `/shops/${coffee.shopId}/webhook/url`, { webhookUrl: receiver.url });

  // Coffee: C-1 and C-2 paid (C-2 refunded in part), C-3 paid and refunded in full, C-4 declined, C-5 not paid, C-6 canceled.
  await paidInSandbox(stack, coffee.apiKey, { orderId: "C-1", amountKopecks: 100_000 }, "SBP");
  const c2 = await paidInSandbox(stack, coffee.apiKey, { orderId: "C-2", amountKopecks: 250_050 }, "SBP");
  const c3 = await paidInSandbox(stack, coffee.apiKey, { orderId: "C-3", amountKopecks: 70_000 }, "CARD");
  await paidInSandbox(stack, coffee.apiKey, { orderId: "C-4", amountKopecks: 55_000 }, "CARD", "FAILED");
  await createPayment(stack, coffee.apiKey, { orderId: "C-5", amountKopecks: 12_300, description: "Капучино" });
  await cancelPayment(stack, coffee.apiKey, (await createPayment(stack, coffee.apiKey, { orderId: "C-6", amountKopecks: 4_500 })).id);
  await stack.call(rpcs.payments.refund, { shopId: coffee.shopId, id: c3.id });
  await stack.call(rpcs.payments.refund, { shopId: coffee.shopId, id: c2.id, amountKopecks: 50_000 });
  // The shop without a URL: one paid payment, whose event has nowhere to go.
  await paidInSandbox(stack, bare.apiKey, { orderId: "N-1", amountKopecks: 20_000 }, "SBP");

  // Every event has had its first attempt: coffee's six delivered, the bare shop's one unsent.
  await eventually(async () => {
    const h = await health();
    return h.coffee?.firstAttempt === 6 && h.bare?.unsent === 1;
  }, 60_000, 200);
});

afterAll(async () => {
  for (const c of contexts) await c.close();
  await browser?.close();
  receiver?.stop();
  await stack?.stop();
});

const signedIn = (options: BrowserContextOptions) => signedInDashboard(browser, contexts, { dashboard, email, password: PASSWORD }, options);

const mainText = (page: Page) => page.locator("main").innerText();
/** Order numbers of the payments table, top to bottom. */
const listedOrders = (page: Page) => page.locator("table.payments tbody td.order").allInnerTexts();
/** The rows of a delivery log, by the order and event they are about. */
const deliveryRow = (page: Page, order: string) => page.locator("tr.delivery", { hasText: order });

describe("on a desktop", () => {
  let page: Page;
  let errors: string[];
  beforeAll(async () => {
    ({ page, errors } = await signedIn({ ...DESKTOP, viewport: { width: 1280, height: 800 } }));
  });

  test("a shop without a webhook URL is not an endpoint with errors, and its events read as not sent", async () => {
    const body = await mainText(page);
    // Coffee's six events, all delivered at once; the bare shop's event is not in the share.
    expect(body).toContain("100\u00a0% (6 из 6)");
    expect(await page.locator("table.failing").count()).toBe(0);
    expect(body).toContain("Ошибок доставки нет.");
    expect(await page.locator(".unsent").innerText()).toContain("Без вебхуков — 1 событие");
    await screenshot(page, "figures-desktop-1-overview");

    await page.goto(`${dashboard}/shops/${bare.shopId}/webhook`);
    const row = deliveryRow(page, "N-1");
    expect(await row.innerText()).toContain("Не отправлен");
    expect(await row.innerText()).toContain("Не указан URL вебхука.");
    expect(await row.locator(".error-text, .badge.bad").count()).toBe(0);
    await page.getByLabel("Только с ошибками").check();
    await page.getByRole("button", { name: "Показать", exact: true }).click();
    await page.waitForURL(/failed=1/);
    expect(await page.locator("tr.delivery").count()).toBe(0);
    await screenshot(page, "figures-desktop-2-log-without-url");
    expect(errors).toEqual([]);
  });

  test("a resend in a filtered log comes back to that filter, and a resent delivered webhook leaves the first-attempt share as it was", async () => {
    await page.goto(`${dashboard}/shops/${coffee.shopId}/webhook`);
    await page.getByLabel("Событие").selectOption({ label: "Оплачен" });
    await page.getByRole("button", { name: "Показать", exact: true }).click();
    await page.waitForURL(/status=SUCCESS/);
    expect(await page.locator("tr.delivery").count()).toBe(3);
    const sentBefore = receiver.requests.filter((r) => JSON.parse(r.body).orderId === "C-1").length;

    await deliveryRow(page, "C-1").getByRole("button", { name: "Отправить ещё раз" }).click();
    await page.getByText("Вебхук поставлен в очередь на повторную отправку.").waitFor(WAIT);
    expect(new URL(page.url()).searchParams.get("status")).toBe("SUCCESS");
    expect(await page.getByLabel("Событие").inputValue()).toBe("SUCCESS");
    expect(await page.locator("tr.delivery").count()).toBe(3);
    await screenshot(page, "figures-desktop-3-log-after-resend");

    // Sent again and delivered again; the share still counts how each event's first attempt went.
    await eventually(() => receiver.requests.filter((r) => JSON.parse(r.body).orderId === "C-1").length > sentBefore, 30_000, 100);
    await eventually(async () => (await health()).coffee?.delivered === 6, 30_000, 200);
    await page.goto(`${dashboard}/overview?shop=${coffee.shopId}`);
    expect(await mainText(page)).toContain("100\u00a0% (6 из 6)");
  });

  test("the payments list says how many were found and what of them was paid; a payment refunded in part says so", async () => {
    await page.goto(`${dashboard}/shops/${coffee.shopId}/payments`);
    // The form is open on a wide screen, with no tap needed.
    expect(await page.getByLabel("С (дата, МСК)").isVisible()).toBe(true);
    const total = await page.locator("p.total").innerText();
    // C-1, C-2 and C-3 were paid (C-3 refunded since): not C-4's, C-5's or C-6's amounts.
    expect(total).toBe(`Найдено: 6 платежей · оплачено 3 на ${rub(100_000 + 250_050 + 70_000)} (до вычета возвратов)`);
    expect(await page.locator("table.payments tbody tr", { hasText: "C-2" }).locator("td.status").innerText()).toContain(`частичный возврат ${rub(50_000)}`);
    expect(await page.locator("table.payments tbody tr", { hasText: "C-1" }).locator("td.status").innerText()).not.toContain("возврат");
    await screenshot(page, "figures-desktop-4-payments");

    await page.getByLabel("Создан", { exact: true }).check();
    await page.getByRole("button", { name: "Показать", exact: true }).click();
    await page.waitForURL(/status=CREATED/);
    expect(await page.locator("p.total").innerText()).toBe("Найдено: 1 платёж");

    await page.goto(`${dashboard}/shops/${coffee.shopId}/payments`);
    await page.getByRole("link", { name: "C-2" }).click();
    await page.locator("table.refunds").waitFor(WAIT);
    const fact = (label: string) => page.locator("dl.facts dt", { hasText: new RegExp(`^${label}$`) }).locator("xpath=following-sibling::dd[1]");
    expect(await fact("Статус").innerText()).toMatch(new RegExp(`Оплачен\\s+частичный возврат ${rub(50_000)}`));
    // A sandbox payment moves no money: its commission is not charged, whatever the figure.
    expect(await fact("Комиссия").innerText()).toMatch(/₽ — тестовый платёж, не удерживается$/);
    await screenshot(page, "figures-desktop-5-payment-refunded-in-part");
    await page.goto(`${dashboard}/shops/${coffee.shopId}/payments`);
    await page.getByRole("link", { name: "C-4" }).click();
    await page.locator("dl.facts").waitFor(WAIT);
    // Declined: no commission was charged, and the page no longer shows one as if it had been.
    expect(await fact("Комиссия").innerText()).toBe("не удерживается: платёж не оплачен");
    expect(errors).toEqual([]);
  });
});

describe("on a phone", () => {
  let page: Page;
  let errors: string[];
  beforeAll(async () => {
    ({ page, errors } = await signedIn(PHONE));
  });

  test("the payments list starts on the first screen, three short lines a payment; the folded filters say what is shown", async () => {
    await page.goto(`${dashboard}/shops/${coffee.shopId}/payments`);
    const fold = page.locator("details.filter-fold > summary");
    expect(await fold.innerText()).toBe("Фильтры за всё время · все статусы · сначала новые");
    expect(await page.getByLabel("С (дата, МСК)").isVisible()).toBe(false);
    const firstRow = await page.locator("table.payments tbody tr").first().boundingBox();
    expect(firstRow!.y + firstRow!.height).toBeLessThan(PHONE.viewport!.height);
    // Lines of text in each row, by the body's line height: three, and one more for a refund in part.
    const lines = await page.locator("table.payments tbody tr").evaluateAll((rows) =>
      rows.map((tr) => {
        const style = getComputedStyle(tr);
        const height = tr.getBoundingClientRect().height - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom);
        return [tr.querySelector("td.order")!.textContent!.trim(), Math.round(height / parseFloat(getComputedStyle(document.body).lineHeight))] as const;
      }),
    );
    expect(Object.fromEntries(lines)).toEqual({ "C-6": 3, "C-5": 3, "C-4": 3, "C-3": 3, "C-2": 4, "C-1": 3 });
    expect(await fitsWidth(page)).toBe(true);
    await page.screenshot({ path: `${import.meta.dir}/../artifacts/figures-phone-1-payments-first-screen.png` });
    await screenshot(page, "figures-phone-2-payments");

    await fold.click();
    await page.getByLabel("Оплачен", { exact: true }).check();
    await page.getByRole("button", { name: "Показать", exact: true }).click();
    await page.waitForURL(/status=SUCCESS/);
    expect(await fold.innerText()).toBe("Фильтры за всё время · Оплачен · сначала новые");
    expect(await listedOrders(page)).toEqual(["C-2", "C-1"]);
    expect(await page.locator("p.total").innerText()).toContain(`оплачено 2 на ${rub(350_050)}`);
    expect(await fitsWidth(page)).toBe(true);
    await screenshot(page, "figures-phone-3-payments-paid");
    expect(errors).toEqual([]);
  });

  test("the overview and the payment page fit the phone", async () => {
    await page.goto(`${dashboard}/overview`);
    expect(await page.locator(".unsent").innerText()).toContain("Без вебхуков — 1 событие");
    expect(await fitsWidth(page)).toBe(true);
    await screenshot(page, "figures-phone-4-overview");
    await page.goto(`${dashboard}/shops/${coffee.shopId}/payments?status=SUCCESS`);
    await page.getByRole("link", { name: "C-2" }).click();
    await page.locator("table.refunds").waitFor(WAIT);
    expect(await page.locator("dl.facts").innerText()).toContain(`частичный возврат ${rub(50_000)}`);
    expect(await fitsWidth(page)).toBe(true);
    await screenshot(page, "figures-phone-5-payment");
    expect(errors).toEqual([]);
  });
});
