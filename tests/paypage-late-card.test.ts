import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import type { Browser } from "playwright-core";
import { DEV_ACQUIRER_API_KEY, rpcs } from "@payaccept/contracts";
import { eventually, Stack, STACK_START_MS } from "./harness/stack.ts";
import { DESKTOP, launchBrowser, screenshot } from "./browser/browser.ts";
import { createPayment, statusOf } from "./browser/shop-fixtures.ts";
import { BankApp, eventsOf } from "./payments-fixtures.ts";

// Real processes and a real browser take longer than bun's 5 s default; bounded all the same.
setDefaultTimeout(90_000);

/**
 * The late card decision, end to end with real processes: the spec's late payment is the SBP QR's
 * only. A card form submitted after the deadline is refused by the acquirer (nothing charged), and
 * a card the bank took in time whose result reaches payments only after the expiry is not turned
 * into a success: its money is returned.
 */

const WAIT = { timeout: 20_000 };
const PENDING_TTL_MS = 8000;
let stack: Stack;
let browser: Browser;

beforeAll(async () => {
  [stack, browser] = await Promise.all([
    Stack.start({
      // A failed callback is retried only after 20 s: long enough for payments to come back and expire the payment first.
      env: { PENDING_TTL: `${PENDING_TTL_MS}ms`, TIMER_SWEEP_MS: "200", ACQUIRER_CALLBACK_RETRY_BASE: "20s" },
    }),
    launchBrowser(),
  ]);
}, STACK_START_MS);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

test("a card form left open past the deadline (scripts off) is refused by the bank; the payment stays EXPIRED", async () => {
  const shop = await stack.createShop({ name: "Книжная полка", sandbox: false, methods: ["CARD"] });
  const p = await createPayment(stack, shop.apiKey, { description: "«Мастер и Маргарита»", amountKopecks: 89900 });
  const context = await browser.newContext({ ...DESKTOP, javaScriptEnabled: false });
  const page = await context.newPage();
  await page.goto(p.payUrl);
  await page.getByRole("button", { name: "Оплатить картой" }).click();
  await page.getByRole("heading", { level: 1, name: "Оплата картой" }).waitFor(WAIT);
  await page.getByLabel("Номер карты").fill("4111 1111 1111 1111");
  await page.getByLabel("Срок действия (ММ/ГГ)").fill("12/30");
  await page.getByLabel("CVC/CVV").fill("123");
  await screenshot(page, "late-card-1-form");

  // Without scripts the page does not follow the expiry: the buyer submits a stale form.
  await eventually(async () => (await statusOf(stack, shop.apiKey, p.id)) === "EXPIRED", 20_000, 100);
  await page.getByRole("button", { name: /^Оплатить \d/ }).click();
  await page.getByRole("heading", { level: 1, name: "Время оплаты истекло" }).waitFor(WAIT);
  expect(await page.getByText("карта не принята и деньги не списаны").isVisible()).toBe(true);
  await screenshot(page, "late-card-2-bank-refuses");

  await page.getByRole("link", { name: "Вернуться к заказу" }).click();
  await page.getByRole("heading", { level: 1, name: "Время оплаты истекло" }).waitFor(WAIT);
  expect(new URL(page.url()).pathname).toBe(`/pay/${p.id}`);
  await screenshot(page, "late-card-3-expired");
  expect(await statusOf(stack, shop.apiKey, p.id)).toBe("EXPIRED");
  expect((await eventsOf(stack, p.id)).map((e) => e.event.status)).toEqual(["EXPIRED"]);
  await context.close();
});

test("a card paid in time whose result arrives after the expiry is refused and its money returned, not turned into SUCCESS", async () => {
  const shop = await stack.createShop({ name: "Книжная полка", sandbox: false, methods: ["CARD"] });
  const p = await createPayment(stack, shop.apiKey, { amountKopecks: 89900 });
  const view = await stack.call(rpcs.payments.start, { id: p.id, method: "CARD" });
  const deadline = Date.parse(view.expiresAt!);

  // Payments is down while the bank takes the card, before the deadline: the callback waits for a retry.
  await stack.kill("payments");
  const res = await new BankApp(stack).card(view.card!.formAction, "4111 1111 1111 1111");
  expect(res.status).toBe(303);
  expect(Date.now()).toBeLessThan(deadline);
  while (Date.now() <= deadline) await Bun.sleep(100);
  await stack.restart("payments");
  await eventually(async () => (await statusOf(stack, shop.apiKey, p.id)) === "EXPIRED", 10_000, 100);

  await eventually(() => stack.log("payments").includes("the money was returned"), 45_000, 250);
  expect(await statusOf(stack, shop.apiKey, p.id)).toBe("EXPIRED");
  // The acquirer holds the refund: asking again answers the existing one (200), not a new one (201).
  const again = await fetch(`${stack.url("acquirer-emulator")}/v1/sessions/${view.card!.sessionId}/refund`, {
    method: "POST",
    headers: { Authorization: `Bearer ${DEV_ACQUIRER_API_KEY}`, "Content-Type": "application/json" },
    body: JSON.stringify({ amountKopecks: 89900, merchantRefundId: view.card!.sessionId }),
  });
  expect(again.status).toBe(200);
  expect((await again.json()).status).toBe("SUCCEEDED");
  expect((await eventsOf(stack, p.id)).map((e) => e.event.status)).toEqual(["EXPIRED"]);
});
