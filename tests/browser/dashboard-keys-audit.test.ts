import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import type { Browser, BrowserContext } from "playwright-core";
import { DashboardClient, uniqueEmail } from "../dashboard-client.ts";
import { eventually, Stack } from "../harness/stack.ts";
import { DESKTOP, fitsWidth, launchBrowser, PHONE, screenshot, signedInDashboard } from "./browser.ts";

// A real browser against real services; bounded all the same.
setDefaultTimeout(120_000);

/**
 * The key card and the audit log as a merchant uses them in Debian's chromium: roll the key with
 * a day's overlap, see both keys with the old one's expiry, turn the old one off early, then find
 * both actions in the log, filtered. Screenshots in tests/artifacts/keys-*.png.
 */

const PASSWORD = "correct horse battery";
const email = uniqueEmail("keys");
let stack: Stack;
let browser: Browser;
let shop: { shopId: string; apiKey: string };
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  [stack, browser] = await Promise.all([Stack.start({ services: ["directory", "dashboard", "payments", "gateway"], env: { TRUSTED_PROXIES: "127.0.0.1" } }), launchBrowser()]);
  const merchant = DashboardClient.of(stack);
  await merchant.signUp(email, PASSWORD);
  shop = await merchant.createShop("Ключи и журнал");
});
afterAll(async () => {
  for (const c of contexts) await c.close();
  await browser?.close();
  await stack?.stop();
});

/** What the gateway answers the key on a read that needs only the key (an unknown payment: 404 when it works). */
const keyStatus = async (apiKey: string) => (await stack.api(apiKey, "/v1/payments/0199a3e0-0000-7000-8000-000000000000")).status;

test("roll the key with an overlap, see both keys with the old one's expiry, turn it off early; both actions are in the log, filtered", async () => {
  const { page, errors } = await signedInDashboard(browser, contexts, { dashboard: stack.url("dashboard"), email, password: PASSWORD }, DESKTOP);
  page.on("dialog", (d) => void d.accept());
  await page.goto(`${stack.url("dashboard")}/shops/${shop.shopId}`);
  const keyCard = page.locator("#api-key");
  await keyCard.getByLabel("Прежний ключ работает ещё").selectOption({ label: "24 часа" });
  await keyCard.getByRole("button", { name: "Выпустить новый ключ" }).click();
  await page.getByText("Новый API-ключ. Скопируйте и сохраните его сейчас").waitFor({ timeout: 30_000 });
  const newKey = (await page.locator("#api-key code, #api-key input").first().evaluate((el) => (el as HTMLInputElement).value || el.textContent || "")).trim();
  expect(newKey).toMatch(/^pk_test_[A-Za-z0-9_-]{43}$/);

  // Both keys: the old one listed with its expiry, a day from now; both work.
  const retiring = page.locator("#retiring-keys");
  await expect(retiring.innerText()).resolves.toContain(`${shop.apiKey.slice(0, 12)}…`);
  expect(await retiring.innerText()).toContain("работает до");
  const until = Date.parse((await retiring.locator("time").getAttribute("datetime"))!);
  expect(until).toBeGreaterThan(Date.now() + 23 * 3600_000);
  await eventually(async () => (await keyStatus(newKey)) === 404);
  expect(await keyStatus(shop.apiKey)).toBe(404);
  await screenshot(page, "keys-both");

  // Turned off early: the old key gets 401, the new one goes on.
  await retiring.getByRole("button", { name: "Отключить сейчас" }).click();
  await page.getByText("Прежний ключ отключён.").waitFor({ timeout: 30_000 });
  expect(await page.locator("#retiring-keys").count()).toBe(0);
  await eventually(async () => (await keyStatus(shop.apiKey)) === 401);
  expect(await keyStatus(newKey)).toBe(404);

  // The log: both actions, by this member, from this browser; filtered to one action.
  await page.getByRole("link", { name: "Журнал" }).click();
  await page.getByRole("heading", { level: 1, name: "Журнал действий" }).waitFor();
  const rows = page.locator("table.audit-log tbody tr");
  await expect(rows.filter({ hasText: "API-ключ заменён" }).innerText()).resolves.toContain(email);
  expect(await rows.filter({ hasText: "Прежний API-ключ отключён досрочно" }).innerText()).toContain(email);
  expect(await rows.filter({ hasText: "API-ключ заменён" }).innerText()).toContain("HeadlessChrome");
  await page.getByLabel("Действие").selectOption({ label: "Прежний API-ключ отключён досрочно" });
  await page.getByRole("button", { name: "Показать" }).click();
  await page.waitForURL(/action=api_key\.overlap_ended/);
  expect(await rows.count()).toBe(1);
  expect(await rows.first().innerText()).toContain(shop.apiKey.slice(0, 12));
  await screenshot(page, "keys-audit");
  expect(errors).toEqual([]);
});

test("the audit page fits a phone", async () => {
  const { page } = await signedInDashboard(browser, contexts, { dashboard: stack.url("dashboard"), email, password: PASSWORD }, PHONE);
  await page.goto(`${stack.url("dashboard")}/audit`);
  await page.locator("table.audit-log tbody tr").first().waitFor();
  expect(await fitsWidth(page)).toBe(true);
  await screenshot(page, "keys-audit-phone");
});
