import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { ProviderSession } from "@payaccept/contracts";
import { AcquirerClient, CallbackReceiver } from "../acquirer-fixtures.ts";
import { Stack } from "../harness/stack.ts";
import { collectPageErrors, launchBrowser, PHONE, screenshot } from "./browser.ts";

// A real browser against the real emulator; bounded all the same.
setDefaultTimeout(120_000);

/**
 * The payer in the emulator's bank app, in Debian's chromium on a phone: consents to an SBP
 * binding and to pay-and-bind, finds both under «Мои привязки» and revokes one; payments hears
 * each by a signed callback. Screenshots go to tests/artifacts/bank-app-*.png.
 */

const WAIT = { timeout: 20_000 };
let stack: Stack;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let errors: string[];
let receiver: CallbackReceiver;
let acq: AcquirerClient;

beforeAll(async () => {
  receiver = new CallbackReceiver();
  [stack, browser] = await Promise.all([Stack.start({ services: ["acquirer-emulator"] }), launchBrowser()]);
  acq = new AcquirerClient(stack);
  context = await browser.newContext(PHONE);
  page = await context.newPage();
  errors = collectPageErrors(page);
});
afterAll(async () => {
  await context?.close();
  await browser?.close();
  await stack?.stop();
  receiver?.stop();
});

async function sbpLinks(path: string, body: Record<string, unknown>) {
  const res = await acq.api(path, { returnUrl: "http://localhost:39997/back", callbackUrl: receiver.url, description: null, ...body });
  const links = ProviderSession.parse(await res.json());
  if (links.method !== "SBP") throw new Error("expected SBP links");
  return links;
}
const heading = (name: string | RegExp) => page.getByRole("heading", { level: 1, name });
const fitsWidth = () => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

describe("SBP bindings in the bank app", () => {
  let binding: { sessionId: string };
  let payAndBind: { sessionId: string };

  test("the payer reads what a binding allows and consents; payments gets BOUND with the account", async () => {
    const links = await sbpLinks("/v1/bindings", { bindingId: crypto.randomUUID(), merchantName: "Чайный клуб", description: "Ежемесячная подписка на чай" });
    binding = links;
    await page.goto(links.qrPayload);
    await heading("Привязка счёта по СБП").waitFor(WAIT);
    const consent = await page.locator("#binding-consent").innerText();
    expect(consent).toContain("Магазин «Чайный клуб» просит привязать ваш счёт");
    expect(consent).toContain("без вашего подтверждения");
    expect(consent).toContain("Отозвать привязку можно в любой момент");
    expect(await fitsWidth()).toBe(true);
    await screenshot(page, "bank-app-1-binding-consent");
    await page.getByRole("button", { name: "Привязать счёт" }).click();
    await page.getByRole("status").filter({ hasText: "Счёт привязан" }).waitFor(WAIT);
    const [bound] = await receiver.bodiesFor(links.sessionId, 1);
    expect(bound).toMatchObject({ event: "BOUND", savedMethod: { method: "SBP", status: "ACTIVE" } });
  });

  test("pay and bind: the payment page's consent leads to a payment that binds the account too", async () => {
    const links = await sbpLinks("/v1/sessions", { merchantPaymentId: crypto.randomUUID(), method: "SBP", amountKopecks: 49_900, merchantName: "Онлайн-курс", saveMethod: true });
    payAndBind = links;
    await page.goto(links.qrPayload);
    await heading("Оплата по СБП").waitFor(WAIT);
    expect(await page.getByRole("button").allInnerTexts()).toEqual(["Оплатить и привязать счёт", "Оплатить без привязки", "Отклонить"]);
    await screenshot(page, "bank-app-2-pay-and-bind");
    await page.getByRole("button", { name: "Оплатить и привязать счёт" }).click();
    await page.getByRole("status").filter({ hasText: "Оплачено" }).waitFor(WAIT);
    expect(await page.getByRole("status").innerText()).toContain("Счёт привязан: Магазин «Онлайн-курс»");
    const [paid] = await receiver.bodiesFor(links.sessionId, 1);
    expect(paid).toMatchObject({ event: "PAID", amountKopecks: 49_900, savedMethod: { method: "SBP" } });
  });

  test("«Мои привязки» lists both; revoking one tells payments and leaves the other", async () => {
    await page.getByRole("link", { name: "Мои привязки" }).click();
    await heading("Мои привязки").waitFor(WAIT);
    const items = page.locator("li.binding");
    expect(await items.allInnerTexts()).toEqual([expect.stringContaining("«Онлайн-курс»"), expect.stringContaining("«Чайный клуб»")]);
    expect(await fitsWidth()).toBe(true);
    await screenshot(page, "bank-app-3-bindings");
    await page.getByRole("button", { name: "Отозвать привязку Чайный клуб" }).click();
    await page.getByRole("status").filter({ hasText: "Привязка отозвана" }).waitFor(WAIT);
    expect(await items.filter({ hasText: "Чайный клуб" }).innerText()).toContain("Отозвана");
    expect(await page.getByRole("button", { name: "Отозвать привязку Онлайн-курс" }).isVisible()).toBe(true);
    await screenshot(page, "bank-app-4-revoked");
    const events = await receiver.bodiesFor(binding.sessionId, 2);
    expect(events.map((e) => [e.event, e.savedMethod?.status, e.savedMethod?.revokedBy])).toEqual([
      ["BOUND", "ACTIVE", null],
      ["METHOD_REVOKED", "REVOKED", "PAYER"],
    ]);
    expect(receiver.callbacksFor(payAndBind.sessionId)).toHaveLength(1);
  });

  test("another phone's bank app has no bindings to show", async () => {
    const other = await browser.newContext(PHONE);
    const p = await other.newPage();
    await p.goto(`${stack.env.ACQUIRER_PUBLIC_URL}/app/bindings`);
    expect(await p.locator("main").innerText()).toContain("Привязок нет");
    await other.close();
    expect(errors).toEqual([]);
  });
});
