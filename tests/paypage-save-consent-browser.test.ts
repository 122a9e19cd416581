import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { Payment, rpcs, type SaveMethodConsent } from "@payaccept/contracts";
import { eventually, Stack, type ShopCreated } from "./harness/stack.ts";
import { DESKTOP, fitsWidth, launchBrowser, openPage, PHONE, screenshot } from "./browser/browser.ts";
import { createPayment } from "./browser/shop-fixtures.ts";

// Real processes and a real browser take longer than bun's 5 s default; bounded all the same.
setDefaultTimeout(90_000);

/**
 * The buyer's consent to save a payment method, on the payment page in a real browser against the
 * whole stack (live acquirer emulator), at desktop and phone sizes: the shop's ALWAYS (a stated
 * condition) and BUYER_CHOICE (an unticked box: refusing still pays, ticking saves), a card and an
 * SBP binding confirmed in the bank app, and a merchant-initiated charge whose bank asks for
 * authentication, completed from its payUrl (live, and in a sandbox). Screenshots go to
 * tests/artifacts/paypage-save-*.png.
 */

const WAIT = { timeout: 30_000 };
const SIZES = { desktop: DESKTOP, phone: PHONE } as const;

let stack: Stack;
let browser: Browser;
const shops = {} as Record<SaveMethodConsent, ShopCreated>;
let sandbox: ShopCreated;
const contexts: BrowserContext[] = [];

async function shopWith(consent: SaveMethodConsent, name: string, isSandbox = false): Promise<ShopCreated> {
  const shop = await stack.createShop({ name, sandbox: isSandbox, methods: ["SBP", "CARD"] });
  await stack.call(rpcs.directory.updateShop, { shopId: shop.shopId, savedMethodConsent: consent });
  // payments reads the shop from its watch of the directory: the setting is there once a page shows it.
  const probe = await createPayment(stack, shop.apiKey, { savePaymentMethod: true });
  await eventually(async () => (await stack.call(rpcs.payments.checkout, { id: probe.id })).saveMethod?.consent === consent, 20_000);
  return shop;
}

beforeAll(async () => {
  [stack, browser] = await Promise.all([Stack.start(), launchBrowser()]);
  shops.ALWAYS = await shopWith("ALWAYS", "Чайный клуб");
  shops.BUYER_CHOICE = await shopWith("BUYER_CHOICE", "Онлайн-курс «Python»");
  sandbox = await shopWith("BUYER_CHOICE", "Песочница подписок", true);
  // A stack on a busy machine takes up to the harness's readiness wait per service: a liveness bound, not a speed.
}, 300_000);

afterAll(async () => {
  for (const c of contexts) await c.close();
  await browser?.close();
  await stack?.stop();
});

const heading = (page: Page, name: string | RegExp) => page.getByRole("heading", { level: 1, name });
const shot = (page: Page, name: string) => screenshot(page, `paypage-save-${name}`);

async function payByCard(page: Page, pan: string): Promise<void> {
  await page.getByLabel("Номер карты").fill(pan);
  await page.getByLabel("Срок действия (ММ/ГГ)").fill("12/30");
  await page.getByLabel("CVC/CVV").fill("123");
  await page.getByRole("button", { name: /^Оплатить \d/ }).click();
}

async function paymentOf(shop: ShopCreated, id: string): Promise<Payment> {
  return Payment.parse(await (await stack.api(shop.apiKey, `/v1/payments/${id}`)).json());
}

/** Waits until the API reports the payment in `status` (the webhook's truth), and returns it. */
const settled = (shop: ShopCreated, id: string, status: string) => eventually(async () => ((await paymentOf(shop, id)).status === status ? paymentOf(shop, id) : false), 30_000);

/** The consent box on the page: its words, whether it is a condition or a choice. */
async function consentOf(page: Page): Promise<{ text: string; boxes: number }> {
  const box = page.getByRole("group", { name: "Сохранение способа оплаты" });
  await box.waitFor(WAIT);
  return { text: await box.innerText(), boxes: await box.getByRole("checkbox").count() };
}

/** What every consent must say: what is kept, by which shop, what for, and how to withdraw it. */
function expectExplains(text: string, shopName: string): void {
  expect(text).toContain(`Магазин «${shopName}» просит сохранить ваш способ оплаты`);
  expect(text).toContain("без вашего подтверждения");
  expect(text).toContain("последние 4 цифры");
  expect(text).toContain("Номера карты у магазина не будет");
  expect(text).toContain("Привязку вы подтвердите в приложении банка");
  expect(text).toContain("Отозвать согласие можно в любой момент");
  expect(text).toContain("«Мои привязки»");
}

/** The buyer pays by SBP in the bank app, opened from the page's link (phones) or its QR's payload (desktops scan it). */
async function payInBankApp(page: Page, decision: "Оплатить и привязать счёт" | "Оплатить без привязки"): Promise<void> {
  const payload = await page.locator("[data-qr-payload]").getAttribute("data-qr-payload");
  const bank = await page.context().newPage();
  await bank.goto(payload!);
  expect(await bank.getByRole("button").allInnerTexts()).toEqual(["Оплатить и привязать счёт", "Оплатить без привязки", "Отклонить"]);
  await bank.getByRole("button", { name: decision }).click();
  await bank.getByRole("status").filter({ hasText: "Оплачено" }).waitFor(WAIT);
  await bank.close();
}

describe("consent to save the payment method", () => {
  for (const [size, options] of Object.entries(SIZES)) {
    test(`${size}, BUYER_CHOICE: the box starts unticked; paying without it pays and saves nothing`, async () => {
      const shop = shops.BUYER_CHOICE;
      const p = await createPayment(stack, shop.apiKey, { savePaymentMethod: true, customerId: "student-7" });
      const { page, errors } = await openPage(browser, contexts, options);
      await page.goto(p.payUrl);
      await heading(page, "Выберите способ оплаты").waitFor(WAIT);
      const consent = await consentOf(page);
      expectExplains(consent.text, "Онлайн-курс «Python»");
      expect(consent.text).toContain("Без отметки оплата пройдёт так же");
      const box = page.getByRole("checkbox", { name: "Сохранить способ оплаты для «Онлайн-курс «Python»»" });
      expect(await box.isChecked()).toBe(false);
      expect(await fitsWidth(page)).toBe(true);
      await shot(page, `${size}-choice-unticked`);

      await page.getByRole("button", { name: "Банковская карта" }).click();
      await heading(page, "Оплата картой").waitFor(WAIT);
      await payByCard(page, "4111 1111 1111 1111");
      await heading(page, "Оплата прошла").waitFor(WAIT);
      const paid = await settled(shop, p.id, "SUCCESS");
      expect(paid.savePaymentMethod).toBe(true);
      expect(paid.paymentMethod).toBeUndefined();
      expect(await page.locator(".saved-method").count()).toBe(0);
      expect(errors).toEqual([]);
    });
  }

  test("desktop, BUYER_CHOICE: ticking the box saves the card, and the receipt names it", async () => {
    const shop = shops.BUYER_CHOICE;
    const p = await createPayment(stack, shop.apiKey, { savePaymentMethod: true, customerId: "student-8" });
    const { page, errors } = await openPage(browser, contexts, DESKTOP);
    await page.goto(p.payUrl);
    await page.getByRole("checkbox", { name: /^Сохранить способ оплаты/ }).check();
    await page.getByRole("button", { name: "Банковская карта" }).click();
    await heading(page, "Оплата картой").waitFor(WAIT);
    await payByCard(page, "4111 1111 1111 1111");
    await heading(page, "Оплата прошла").waitFor(WAIT);
    const paid = await settled(shop, p.id, "SUCCESS");
    expect(paid.paymentMethod).toMatchObject({ method: "CARD", card: { brand: "VISA", last4: "1111", expMonth: 12, expYear: 2030 }, sbp: null });
    await page.reload();
    expect(await page.locator(".receipt").innerText()).toContain("Сохранён для «Онлайн-курс «Python»»");
    expect(await page.locator(".receipt .saved-method").innerText()).toBe("Visa •• 1111, 12/30");
    await shot(page, "desktop-choice-saved-receipt");
    expect(errors).toEqual([]);
  });

  test("phone, BUYER_CHOICE: ticked for SBP, the page says the bank app asks; paying and binding there saves the account", async () => {
    const shop = shops.BUYER_CHOICE;
    const p = await createPayment(stack, shop.apiKey, { savePaymentMethod: true, customerId: "student-9" });
    const { page, errors } = await openPage(browser, contexts, PHONE);
    await page.goto(p.payUrl);
    await page.getByRole("checkbox", { name: /^Сохранить способ оплаты/ }).check();
    await page.getByRole("button", { name: /СБП/ }).click();
    await heading(page, "Оплата через СБП").waitFor(WAIT);
    expect(await page.locator(".bind-note").innerText()).toContain("приложение банка спросит, привязать ли счёт к «Онлайн-курс «Python»»");
    expect(await fitsWidth(page)).toBe(true);
    await shot(page, "phone-choice-sbp-pending");
    await payInBankApp(page, "Оплатить и привязать счёт");
    await heading(page, "Оплата прошла").waitFor(WAIT);
    const paid = await settled(shop, p.id, "SUCCESS");
    expect(paid.paymentMethod).toMatchObject({ method: "SBP", card: null });
    expect(paid.paymentMethod!.sbp!.bankName.length).toBeGreaterThan(0);
    expect(await page.locator(".receipt .saved-method").innerText()).toBe(`СБП, ${paid.paymentMethod!.sbp!.bankName}`);
    expect(errors).toEqual([]);
  });

  for (const [size, options] of Object.entries(SIZES)) {
    test(`${size}, ALWAYS: the page states paying is agreeing (no box), and the method is saved`, async () => {
      const shop = shops.ALWAYS;
      const p = await createPayment(stack, shop.apiKey, { savePaymentMethod: true, customerId: "tea-lover" });
      const { page, errors } = await openPage(browser, contexts, options);
      await page.goto(p.payUrl);
      await heading(page, "Выберите способ оплаты").waitFor(WAIT);
      const consent = await consentOf(page);
      expectExplains(consent.text, "Чайный клуб");
      expect(consent.text).toContain("Это условие оплаты: оплачивая, вы соглашаетесь сохранить способ оплаты.");
      expect(consent.boxes).toBe(0);
      expect(await fitsWidth(page)).toBe(true);
      await shot(page, `${size}-always`);
      if (size === "desktop") {
        await page.getByRole("button", { name: "Банковская карта" }).click();
        await payByCard(page, "5555 5555 5555 4444");
        await heading(page, "Оплата прошла").waitFor(WAIT);
        expect((await settled(shop, p.id, "SUCCESS")).paymentMethod).toMatchObject({ method: "CARD", card: { brand: "MASTERCARD", last4: "4444" } });
      } else {
        // Paying agrees on our page; the bank app still asks, and the buyer may pay without binding.
        await page.getByRole("button", { name: /СБП/ }).click();
        await heading(page, "Оплата через СБП").waitFor(WAIT);
        await payInBankApp(page, "Оплатить без привязки");
        await heading(page, "Оплата прошла").waitFor(WAIT);
        expect((await settled(shop, p.id, "SUCCESS")).paymentMethod).toBeUndefined();
      }
      expect(errors).toEqual([]);
    });
  }

  test("a payment that does not ask to save shows no consent, and a single method still starts by itself", async () => {
    const shop = await stack.createShop({ name: "Только карты", sandbox: false, methods: ["CARD"] });
    const plain = await createPayment(stack, shop.apiKey);
    const { page } = await openPage(browser, contexts, DESKTOP);
    await page.goto(plain.payUrl);
    await heading(page, "Оплата картой").waitFor(WAIT);
    expect(await page.getByRole("group", { name: "Сохранение способа оплаты" }).count()).toBe(0);
    // Asked to save, the single method waits for the buyer to read the consent.
    const asking = await createPayment(stack, shop.apiKey, { savePaymentMethod: true });
    await page.goto(asking.payUrl);
    await consentOf(page);
    expect(await heading(page, "Оплата заказа").isVisible()).toBe(true);
    expect((await paymentOf(shop, asking.id)).status).toBe("CREATED");
  });
});

describe("a charge the bank asks the buyer to authenticate", () => {
  test("desktop, live: payUrl says who charges what to which card and leads to the bank's check; SUCCESS follows", async () => {
    const shop = shops.BUYER_CHOICE;
    const first = await createPayment(stack, shop.apiKey, { savePaymentMethod: true, customerId: "student-10" });
    const { page, errors } = await openPage(browser, contexts, DESKTOP);
    await page.goto(first.payUrl);
    await page.getByRole("checkbox", { name: /^Сохранить способ оплаты/ }).check();
    await page.getByRole("button", { name: "Банковская карта" }).click();
    await payByCard(page, "4000 0000 0000 0341");
    await heading(page, "Оплата прошла").waitFor(WAIT);
    const method = (await settled(shop, first.id, "SUCCESS")).paymentMethod!;

    const charge = await createPayment(stack, shop.apiKey, { paymentMethodId: method.id, amountKopecks: 99_000 });
    const failed = await settled(shop, charge.id, "FAILED");
    expect(failed.failureCode).toBe("AUTHENTICATION_REQUIRED");
    await page.goto(failed.payUrl);
    await heading(page, "Подтвердите оплату").waitFor(WAIT);
    expect(await page.getByRole("status").first().innerText()).toBe("«Онлайн-курс «Python»» списывает 990,00\u00A0₽ с сохранённого способа оплаты, и ваш банк просит подтвердить это списание.");
    expect(await page.locator(".saved-method").innerText()).toBe("Visa •• 0341, 12/30");
    expect(await page.getByRole("timer").isVisible()).toBe(true);
    await shot(page, "desktop-authenticate");
    await page.getByRole("link", { name: "Подтвердить в банке" }).click();
    await page.getByLabel("Код из SMS").fill("123456");
    await page.getByRole("button", { name: "Подтвердить" }).click();
    await heading(page, "Оплата прошла").waitFor(WAIT);
    expect((await settled(shop, charge.id, "SUCCESS")).merchantInitiated).toBe(true);
    expect(await page.locator(".receipt").innerText()).toContain("Списано с");
    expect(errors).toEqual([]);
  });

  test("phone, sandbox: the outcome picker stands in for the bank's check", async () => {
    const first = await createPayment(stack, sandbox.apiKey, { savePaymentMethod: true, customerId: "sandbox-1" });
    const saved = await stack.api(sandbox.apiKey, `/v1/sandbox/payments/${first.id}/outcome`, { method: "POST", json: { outcome: "SUCCESS" } });
    const methodId = Payment.parse(await saved.json()).paymentMethod!.id;
    const charge = await createPayment(stack, sandbox.apiKey, { paymentMethodId: methodId });
    const asked = await stack.api(sandbox.apiKey, `/v1/sandbox/payments/${charge.id}/outcome`, { method: "POST", json: { outcome: "FAILED", failureCode: "AUTHENTICATION_REQUIRED" } });
    expect(Payment.parse(await asked.json())).toMatchObject({ status: "FAILED", failureCode: "AUTHENTICATION_REQUIRED" });

    const { page, errors } = await openPage(browser, contexts, PHONE);
    await page.goto(charge.payUrl);
    await heading(page, "Подтвердите оплату").waitFor(WAIT);
    expect(await page.getByRole("link", { name: "Подтвердить в банке" }).count()).toBe(0);
    expect(await page.getByRole("button").allInnerTexts()).toEqual(["Успешная оплата"]);
    expect(await fitsWidth(page)).toBe(true);
    await shot(page, "phone-authenticate-sandbox");
    await page.getByRole("button", { name: "Успешная оплата" }).click();
    await heading(page, "Оплата прошла").waitFor(WAIT);
    expect((await paymentOf(sandbox, charge.id)).status).toBe("SUCCESS");
    expect(errors).toEqual([]);
  });
});
