import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Browser, BrowserContextOptions, Page } from "playwright-core";
import { DashboardClient, uniqueEmail } from "../dashboard-client.ts";
import { Stack } from "../harness/stack.ts";
import { DESKTOP, launchBrowser, PHONE, screenshot } from "./browser.ts";
import { createPayment } from "./shop-fixtures.ts";

// A real browser against real directory, dashboard, gateway and payments; bounded all the same.
setDefaultTimeout(120_000);

/**
 * What merchants type, as the dashboard shows it to them and to operators: a 100-character shop
 * name without a space, a name with a right-to-left override, metadata with one, and a tariff with
 * a minimum. Found by hand at 1280×800 and 390×844 (the name pushed every page sideways, the
 * override turned the operator's «…» around, "min" stood in Russian pages).
 */

const PASSWORD = "correct horse battery";
const OPERATOR_PASSWORD = "operator password 1";
const LONG_NAME = "x".repeat(100);
const RLO_NAME = "\u202eevil name";

let stack: Stack;
let browser: Browser;
const merchantEmail = uniqueEmail("merchant-text");
const operatorEmail = uniqueEmail("operator-text");
const shops = { long: "", rlo: "" };
let paymentPath = "";

beforeAll(async () => {
  [stack, browser] = await Promise.all([Stack.start({ services: ["directory", "dashboard", "gateway", "payments"], env: { TRUSTED_PROXIES: "127.0.0.1" } }), launchBrowser()]);
  const merchant = DashboardClient.of(stack);
  await merchant.signUp(merchantEmail, PASSWORD);
  const long = await merchant.createShop(LONG_NAME);
  shops.long = long.shopId;
  shops.rlo = (await merchant.createShop(RLO_NAME)).shopId;
  const payment = await createPayment(stack, long.apiKey, { metadata: { note: "\u202eevil", plain: "ok" } });
  paymentPath = `/shops/${long.shopId}/payments/${payment.id}`;

  expect((await stack.admin(["user:create-operator", "--email", operatorEmail, "--password", OPERATOR_PASSWORD])).code).toBe(0);
  const operator = DashboardClient.of(stack);
  await operator.signIn(operatorEmail, OPERATOR_PASSWORD);
  const page = `/ops/shops/${shops.rlo}`;
  const tariff = { "SBP.percent": "1,5", "SBP.fixed": "10", "SBP.min": "20", "CARD.percent": "2,5", "CARD.fixed": "0", "CARD.min": "0" };
  expect((await operator.submit(page, `${page}/tariff`, tariff)).status).toBe(303);
});

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

async function signedIn(options: BrowserContextOptions, email: string, password: string, lang: "ru" | "en"): Promise<Page> {
  const page = await (await browser.newContext(options)).newPage();
  await page.goto(`${stack.url("dashboard")}/login?lang=${lang}`);
  await page.getByLabel(/Email/).fill(email);
  await page.getByLabel(/Пароль|Password/).fill(password);
  await page.locator("main button[type=submit]").click();
  await page.waitForURL(/\/(overview|ops\/shops)/);
  return page;
}

const fitsWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

/**
 * Where the closing quote after the name is drawn, against the name's first letters: with the
 * override isolated it stays to their right, as it is typed; leaked, the override draws it left.
 */
const quoteAfterName = (page: Page) =>
  page.locator("h1").evaluate((h1) => {
    const rectOf = (needle: string) => {
      const walker = document.createTreeWalker(h1, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const at = node.textContent!.indexOf(needle);
        if (at < 0) continue;
        const range = document.createRange();
        range.setStart(node, at);
        range.setEnd(node, at + needle.length);
        return range.getBoundingClientRect();
      }
      throw new Error(`${needle} not in the heading`);
    };
    return rectOf("»").left >= rectOf("evil").right;
  });

describe("merchant text on the dashboard's pages", () => {
  for (const [viewport, options] of [["desktop", { ...DESKTOP, viewport: { width: 1280, height: 800 } }], ["phone", PHONE]] as const) {
    test(`${viewport}: a 100-character name without a space wraps on the merchant's and the operator's pages`, async () => {
      const merchant = await signedIn(options, merchantEmail, PASSWORD, "ru");
      for (const path of ["/shops", `/shops/${shops.long}`, `/shops/${shops.long}/webhook`, paymentPath]) {
        await merchant.goto(stack.url("dashboard") + path);
        expect({ path, fits: await fitsWidth(merchant) }).toEqual({ path, fits: true });
      }
      await screenshot(merchant, `dashboard-long-name-${viewport}`);
      const operator = await signedIn(options, operatorEmail, OPERATOR_PASSWORD, "en");
      for (const path of ["/ops/shops", `/ops/shops/${shops.long}`]) {
        await operator.goto(stack.url("dashboard") + path);
        expect({ path, fits: await fitsWidth(operator) }).toEqual({ path, fits: true });
      }
      await screenshot(operator, `dashboard-ops-long-name-${viewport}`);
    });
  }

  test("phone: a payment's fields stand under their labels, so a payment id is one line, not four", async () => {
    const page = await signedIn(PHONE, merchantEmail, PASSWORD, "ru");
    await page.goto(stack.url("dashboard") + paymentPath);
    const idLines = await page.locator("dd code").first().evaluate((code) => {
      const range = document.createRange();
      range.selectNodeContents(code);
      return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
    });
    expect(idLines).toBe(1);
    const [label, value] = await Promise.all([page.locator("dl.facts dt").first().boundingBox(), page.locator("dl.facts dd").first().boundingBox()]);
    expect(value!.y).toBeGreaterThanOrEqual(label!.y + label!.height - 1);
    await screenshot(page, "dashboard-payment-phone");
  });

  test("a right-to-left override in a shop's name stays inside the name", async () => {
    const operator = await signedIn(DESKTOP, operatorEmail, OPERATOR_PASSWORD, "ru");
    await operator.goto(`${stack.url("dashboard")}/ops/shops/${shops.rlo}`);
    expect(await quoteAfterName(operator)).toBe(true);
    expect(await operator.locator("h1 bdi").textContent()).toBe(RLO_NAME);
    await operator.goto(`${stack.url("dashboard")}/ops/shops`);
    expect(await operator.locator("td bdi").allTextContents()).toContain(RLO_NAME);

    const merchant = await signedIn(DESKTOP, merchantEmail, PASSWORD, "ru");
    for (const path of ["/shops", `/shops/${shops.rlo}`]) {
      await merchant.goto(stack.url("dashboard") + path);
      expect(await merchant.locator("main bdi").allTextContents()).toContain(RLO_NAME);
    }
  });

  test("metadata shows a bidi control as its JSON escape, so the line reads as stored", async () => {
    const page = await signedIn(DESKTOP, merchantEmail, PASSWORD, "en");
    await page.goto(stack.url("dashboard") + paymentPath);
    const shown = (await page.locator("pre.json").textContent())!;
    expect(shown).toContain('"note": "\\u202eevil"');
    expect(shown).not.toContain("\u202e");
    expect(JSON.parse(shown)).toEqual({ note: "\u202eevil", plain: "ok" });
  });

  test("a commission with a minimum reads in the page's language and keeps its parts together", async () => {
    const ru = await signedIn(DESKTOP, merchantEmail, PASSWORD, "ru");
    await ru.goto(`${stack.url("dashboard")}/shops/${shops.rlo}`);
    const ruText = await ru.locator("main").innerText();
    expect(ruText).toContain("СБП: 1,50\u00a0% +\u00a010,00\u00a0₽, мин.\u00a020,00\u00a0₽");
    expect(ruText).not.toContain(" min ");
    const en = await signedIn(DESKTOP, merchantEmail, PASSWORD, "en");
    await en.goto(`${stack.url("dashboard")}/shops/${shops.rlo}`);
    expect(await en.locator("main").innerText()).toContain("SBP: 1.50% +\u00a0₽10.00, min\u00a0₽20.00");
  });
});
