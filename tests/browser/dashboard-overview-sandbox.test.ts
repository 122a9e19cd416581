import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { rpcs } from "@payaccept/contracts";
import type { Browser, BrowserContextOptions, Page } from "playwright-core";
import { DashboardClient, uniqueEmail } from "../dashboard-client.ts";
import { Stack } from "../harness/stack.ts";
import { DESKTOP, launchBrowser, PHONE, screenshot } from "./browser.ts";
import { createPayment } from "./shop-fixtures.ts";

// A real browser against real directory, dashboard, gateway, payments and dispatcher; bounded all the same.
setDefaultTimeout(120_000);

/**
 * The overview of an account with a live shop and a sandbox one. Found by hand: one 1 000 000 ₽
 * sandbox payment made "All shops" report a turnover of a million, and the shop select, holding a
 * 100-character name, pushed the page sideways.
 */

const PASSWORD = "correct horse battery";
const DESKTOP_800: BrowserContextOptions = { ...DESKTOP, viewport: { width: 1280, height: 800 } };
const SANDBOX_NAME = "s".repeat(100);

let stack: Stack;
let browser: Browser;
const mixedEmail = uniqueEmail("overview-mixed");
const sandboxOnlyEmail = uniqueEmail("overview-sandbox");
let sandboxShopId = "";

async function paidInSandbox(apiKey: string, amountKopecks: number): Promise<void> {
  const payment = await createPayment(stack, apiKey, { amountKopecks });
  await stack.call(rpcs.payments.start, { id: payment.id, method: "SBP" });
  await stack.call(rpcs.payments.sandboxOutcome, { id: payment.id, outcome: "SUCCESS" });
}

beforeAll(async () => {
  [stack, browser] = await Promise.all([
    Stack.start({ services: ["directory", "dashboard", "gateway", "payments", "webhook-dispatcher"], env: { TRUSTED_PROXIES: "127.0.0.1" } }),
    launchBrowser(),
  ]);
  const mixed = DashboardClient.of(stack);
  await mixed.signUp(mixedEmail, PASSWORD);
  await mixed.createShop("Боевая лавка", "live");
  const sandbox = await mixed.createShop(SANDBOX_NAME);
  sandboxShopId = sandbox.shopId;
  await paidInSandbox(sandbox.apiKey, 100_000_000);

  const sandboxOnly = DashboardClient.of(stack);
  await sandboxOnly.signUp(sandboxOnlyEmail, PASSWORD);
  await paidInSandbox((await sandboxOnly.createShop("Песочница")).apiKey, 250_000);
});

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

async function overview(options: BrowserContextOptions, email: string, query = ""): Promise<Page> {
  const page = await (await browser.newContext(options)).newPage();
  await page.goto(`${stack.url("dashboard")}/login`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Пароль").fill(PASSWORD);
  await page.locator("main button[type=submit]").click();
  await page.waitForURL(/\/overview/);
  if (query) await page.goto(`${stack.url("dashboard")}/overview${query}`);
  return page;
}

const turnover = async (page: Page) => (await page.locator(".figures div").first().innerText()).replace(/\s+/g, " ");
const fitsWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

describe("the overview keeps sandbox payments apart", () => {
  for (const [viewport, options] of [["desktop", DESKTOP_800], ["phone", PHONE]] as const) {
    test(`${viewport}: "all" is the live shops only, said so in the select; the page fits`, async () => {
      const page = await overview(options, mixedEmail);
      expect(await page.locator("select[name=shop] option").first().innerText()).toBe("Все боевые магазины (без тестовых)");
      expect(await turnover(page)).toBe("Оборот 0,00 ₽");
      expect(await page.locator(".sandbox-note").count()).toBe(0);
      expect(await fitsWidth(page)).toBe(true);
      await screenshot(page, `overview-live-only-${viewport}`);
    });
  }

  test("the sandbox shop chosen shows its test figures, marked as such", async () => {
    const page = await overview(DESKTOP_800, mixedEmail, `?shop=${sandboxShopId}`);
    expect(await turnover(page)).toBe("Оборот 1 000 000,00 ₽");
    expect(await page.locator(".sandbox-note").innerText()).toContain("Тестовые платежи: деньги не двигались, в баланс они не входят.");
    expect(await fitsWidth(page)).toBe(true);
  });

  test("an account with sandbox shops only sees them together, marked as test figures", async () => {
    const page = await overview(DESKTOP_800, sandboxOnlyEmail);
    expect(await page.locator("select[name=shop] option").first().innerText()).toBe("Все магазины");
    expect(await turnover(page)).toBe("Оборот 2 500,00 ₽");
    expect(await page.locator(".sandbox-note").isVisible()).toBe(true);
  });
});
