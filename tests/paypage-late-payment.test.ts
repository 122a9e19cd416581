import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import type { Browser } from "playwright-core";
import { Stack, STACK_START_MS } from "./harness/stack.ts";
import { DESKTOP, launchBrowser, screenshot } from "./browser/browser.ts";
import { scanQr } from "./browser/qr.ts";
import { createPayment, statusOf } from "./browser/shop-fixtures.ts";

// Real processes and a real browser take longer than bun's 5 s default; bounded all the same.
setDefaultTimeout(60_000);

/**
 * A fast-payment QR paid after the payment expired on our side: the buyer scanned it in time but
 * confirmed in the bank app too late. The payment page shows the expiry, then the success, by itself.
 */

const WAIT = { timeout: 20_000 };
let stack: Stack;
let browser: Browser;

beforeAll(async () => {
  [stack, browser] = await Promise.all([Stack.start({ env: { PENDING_TTL: "6s" } }), launchBrowser()]);
}, STACK_START_MS);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

test("an expired QR paid late in the bank app turns the page from expired to success", async () => {
  const shop = await stack.createShop({ name: "Книжная полка", sandbox: false, methods: ["SBP"] });
  const p = await createPayment(stack, shop.apiKey, { description: "«Мастер и Маргарита»", amountKopecks: 89900 });
  const context = await browser.newContext(DESKTOP);
  const page = await context.newPage();
  await page.goto(p.payUrl);
  const qr = page.getByRole("img", { name: "QR-код для оплаты через СБП" });
  await qr.waitFor(WAIT);
  const scanned = await scanQr(qr);
  expect(scanned).toStartWith(`${stack.env.ACQUIRER_PUBLIC_URL}/sbp/`);
  await screenshot(page, "late-1-qr");

  await page.getByRole("heading", { level: 1, name: "Время оплаты истекло" }).waitFor(WAIT);
  expect(await statusOf(stack, shop.apiKey, p.id)).toBe("EXPIRED");
  expect(await page.getByText("Если вы всё-таки оплатили по QR-коду, страница обновится сама.").isVisible()).toBe(true);
  await screenshot(page, "late-2-expired");

  const bank = await context.newPage();
  await bank.goto(scanned!);
  await bank.getByRole("button", { name: "Оплатить" }).click();
  await bank.getByText("Оплачено").waitFor(WAIT);

  await page.getByRole("heading", { level: 1, name: "Оплата прошла" }).waitFor(WAIT);
  expect(await statusOf(stack, shop.apiKey, p.id)).toBe("SUCCESS");
  await screenshot(page, "late-3-success");
  await context.close();
});
