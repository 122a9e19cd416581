import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { Payment, rpcs } from "@payaccept/contracts";
import { formatMoscow } from "@payaccept/web-ui";
import { DashboardClient, uniqueEmail } from "../dashboard-client.ts";
import { eventually, Stack } from "../harness/stack.ts";
import { DESKTOP, fitsWidth, PHONE, launchBrowser, rub, screenshot, signedInDashboard } from "./browser.ts";
import { createPayment } from "./shop-fixtures.ts";

// A real browser against real directory, dashboard, gateway and payments; bounded all the same.
setDefaultTimeout(120_000);

/**
 * Holds and saved methods as a merchant handles them in the dashboard, at desktop and phone sizes:
 * a held payment with its capture deadline in Moscow time, captured in part (an amount in rubles,
 * confirmed) or released; the shop's saved-method consent setting; a customer's saved methods found
 * by customerId and one revoked after a confirmation; holds counted apart from the turnover.
 * Payments of a sandbox shop, completed from code (the API's sandbox outcome).
 */

const PASSWORD = "correct horse battery";
const WAIT = { timeout: 30_000 };
const SIZES = { desktop: DESKTOP, phone: PHONE } as const;

let stack: Stack;
let browser: Browser;
const contexts: BrowserContext[] = [];
const email = uniqueEmail("saved-methods");
let shop: { shopId: string; apiKey: string };

beforeAll(async () => {
  [stack, browser] = await Promise.all([Stack.start({ services: ["directory", "dashboard", "gateway", "payments"], env: { TRUSTED_PROXIES: "127.0.0.1" } }), launchBrowser()]);
  const merchant = DashboardClient.of(stack);
  await merchant.signUp(email, PASSWORD);
  shop = await merchant.createShop("Прокат велосипедов");
  // A stack on a busy machine takes up to the harness's readiness wait per service: a liveness bound, not a speed.
}, 300_000);

afterAll(async () => {
  for (const c of contexts) await c.close();
  await browser?.close();
  await stack?.stop();
});

const signedIn = (options = DESKTOP) => signedInDashboard(browser, contexts, { dashboard: stack.url("dashboard"), email, password: PASSWORD }, options);

/** A sandbox payment completed from code with SUCCESS: a hold AUTHORIZED, or a payment that saved a test card. */
async function completed(body: Parameters<typeof createPayment>[2]): Promise<Payment> {
  const p = await createPayment(stack, shop.apiKey, body);
  const res = await stack.api(shop.apiKey, `/v1/sandbox/payments/${p.id}/outcome`, { method: "POST", json: { outcome: "SUCCESS" } });
  expect(res.status).toBe(200);
  return Payment.parse(await res.json());
}

const paymentUrl = (p: Payment) => `${stack.url("dashboard")}/shops/${shop.shopId}/payments/${p.id}`;
const fact = (page: Page, label: string) => page.locator("dl.facts dt", { hasText: label }).locator("xpath=following-sibling::dd[1]");
const shot = (page: Page, name: string) => screenshot(page, `dashboard-saved-${name}`);

describe("holds in the dashboard", () => {
  for (const [size, options] of Object.entries(SIZES)) {
    test(`${size}: a hold shows its deadline in Moscow time; capturing part of it in rubles, confirmed, makes it paid for that much`, async () => {
      const hold = await completed({ capture: false, amountKopecks: 250_000, description: "Залог за велосипед" });
      expect(hold.status).toBe("AUTHORIZED");
      const { page, errors } = await signedIn(options);
      await page.goto(paymentUrl(hold));
      expect(await page.locator("dl.facts .badge").first().innerText()).toBe("Ждёт списания");
      expect(await fact(page, "Списать до").innerText()).toContain(formatMoscow(hold.captureDeadline!, "ru"));
      expect(await fact(page, "Заблокировано").innerText()).toBe(rub(250_000));
      expect(await fitsWidth(page)).toBe(true);
      await shot(page, `${size}-hold`);

      await page.getByRole("link", { name: "Списать" }).click();
      await page.getByRole("heading", { name: "Списать заблокированную сумму?" }).waitFor(WAIT);
      expect(await page.getByLabel("Сумма списания, ₽").inputValue()).toBe("2500,00");
      await page.getByLabel("Сумма списания, ₽").fill("1800,50");
      await page.getByRole("button", { name: "Да, списать" }).click();
      await page.getByText("Сумма списана.").waitFor(WAIT);
      expect(await page.locator("dl.facts .badge").first().innerText()).toBe("Оплачен");
      expect(await fact(page, "Сумма").first().innerText()).toBe(rub(180_050));
      const captured = await stack.call(rpcs.payments.get, { shopId: shop.shopId, id: hold.id });
      expect(captured).toMatchObject({ status: "SUCCESS", amountKopecks: 180_050, heldKopecks: 250_000 });
      expect(errors).toEqual([]);
    });
  }

  test("desktop: releasing a hold asks first, then cancels it; a capture of more than the hold is refused in words", async () => {
    const hold = await completed({ capture: false, amountKopecks: 90_000 });
    const { page, errors } = await signedIn(DESKTOP);
    await page.goto(`${paymentUrl(hold)}/capture`);
    await page.getByLabel("Сумма списания, ₽").fill("1000");
    await page.getByRole("button", { name: "Да, списать" }).click();
    await page.getByText("Действие не выполнено:").waitFor(WAIT);
    expect((await stack.call(rpcs.payments.get, { shopId: shop.shopId, id: hold.id })).status).toBe("AUTHORIZED");

    await page.goto(paymentUrl(hold));
    await page.getByRole("link", { name: "Снять блокировку" }).click();
    await page.getByRole("heading", { name: "Снять блокировку?" }).waitFor(WAIT);
    await page.getByRole("button", { name: "Да, снять блокировку" }).click();
    await page.getByText("Блокировка снята.").waitFor(WAIT);
    expect(await page.locator("dl.facts .badge").first().innerText()).toBe("Отменён");
    expect(await page.getByRole("link", { name: "Списать" }).count()).toBe(0);
    // The refused capture's page is answered 409 on purpose; the browser logs that status, nothing else may appear.
    expect(errors).toEqual(["Failed to load resource: the server responded with a status of 409 (Conflict)"]);
  });

  test("the payments list and the overview count holds apart from what was paid", async () => {
    const hold = await completed({ capture: false, amountKopecks: 77_700 });
    const { page, errors } = await signedIn(DESKTOP);
    await page.goto(`${stack.url("dashboard")}/shops/${shop.shopId}/payments?status=AUTHORIZED`);
    expect(await page.locator("p.total .held-total").innerText()).toContain("ждут списания");
    expect(await page.getByRole("link", { name: hold.orderId }).isVisible()).toBe(true);
    await page.goto(`${stack.url("dashboard")}/overview`);
    expect(Number(await page.locator("#kpi-held").innerText())).toBeGreaterThanOrEqual(1);
    expect(errors).toEqual([]);
  });
});

describe("saved methods in the dashboard", () => {
  test("desktop: the shop's consent setting is saved and reaches the payment page's view", async () => {
    const { page, errors } = await signedIn(DESKTOP);
    await page.goto(`${stack.url("dashboard")}/shops/${shop.shopId}`);
    await page.getByLabel("Сохранение способа оплаты").selectOption("ALWAYS");
    await page.locator("form[action$='/settings'] button[type=submit]").click();
    await page.getByLabel("Сохранение способа оплаты").waitFor(WAIT);
    expect(await page.getByLabel("Сохранение способа оплаты").inputValue()).toBe("ALWAYS");
    const asking = await createPayment(stack, shop.apiKey, { savePaymentMethod: true });
    await eventually(async () => (await stack.call(rpcs.payments.checkout, { id: asking.id })).saveMethod?.consent === "ALWAYS", 20_000);
    expect(errors).toEqual([]);
  });

  for (const [size, options] of Object.entries(SIZES)) {
    test(`${size}: a payment names its saved method; the customer's methods are found by customerId and one is revoked after a confirmation`, async () => {
      const customerId = `rider-${size}`;
      const first = await completed({ savePaymentMethod: true, customerId });
      const second = await completed({ savePaymentMethod: true, customerId });
      await completed({ savePaymentMethod: true, customerId: `${customerId}-other` });
      const { page, errors } = await signedIn(options);
      await page.goto(paymentUrl(first));
      expect(await fact(page, "Сохранённый способ").innerText()).toMatch(/^Visa •• 4242, \d{2}\/\d{2}$/);
      await fact(page, "Покупатель (customerId)").getByRole("link", { name: customerId }).click();

      await page.getByRole("heading", { name: "Сохранённые способы оплаты" }).waitFor(WAIT);
      expect(await page.getByLabel("ID покупателя (customerId)").inputValue()).toBe(customerId);
      const rows = page.locator("table.methods tbody tr");
      expect(await rows.count()).toBe(2);
      expect(await rows.first().locator(".status .badge").innerText()).toBe("Активен");
      expect(await fitsWidth(page)).toBe(true);
      await shot(page, `${size}-methods`);

      await rows.first().getByRole("link", { name: "Отозвать" }).click();
      await page.getByRole("heading", { name: "Отозвать сохранённый способ?" }).waitFor(WAIT);
      expect(await page.locator("main").innerText()).toContain(`покупателя ${customerId} больше нельзя будет списывать`);
      await page.getByRole("button", { name: "Да, отозвать" }).click();
      await page.getByText("Способ оплаты отозван.").waitFor(WAIT);
      expect(await rows.first().locator(".status").innerText()).toContain("Отозван");
      expect(await rows.first().locator(".status").innerText()).toContain("отозван вами");
      expect(await rows.first().getByRole("link", { name: "Отозвать" }).count()).toBe(0);
      expect((await stack.call(rpcs.payments.getMethod, { shopId: shop.shopId, id: second.paymentMethod!.id })).status).toBe("REVOKED");
      expect((await stack.call(rpcs.payments.getMethod, { shopId: shop.shopId, id: first.paymentMethod!.id })).status).toBe("ACTIVE");
      expect(errors).toEqual([]);
    });
  }
});
