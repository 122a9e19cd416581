import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from "playwright-core";

/**
 * Debian's chromium driven by playwright-core, for every browser test of the project. The host
 * resolver maps every name except loopback to nothing, so a page can never reach the internet.
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1 , EXCLUDE localhost",
    ],
  });
}

export const DESKTOP: BrowserContextOptions = { viewport: { width: 1280, height: 900 }, locale: "ru-RU" };

/** A mid-sized phone (iPhone 12-14 class) in portrait. */
export const PHONE: BrowserContextOptions = {
  viewport: { width: 390, height: 844 },
  deviceScaleFactor: 3,
  isMobile: true,
  hasTouch: true,
  locale: "ru-RU",
  userAgent:
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Mobile Safari/537.36",
};

/** Screenshots land in tests/artifacts (git-ignored) for a person to look at. */
export const ARTIFACTS_DIR = resolve(import.meta.dir, "../artifacts");

/**
 * The whole page in CSS pixels: at a phone's device scale (3) it is nine times the pixels to
 * encode, seconds per screenshot on a busy machine, for the same layout a person looks at here.
 * The page itself is still laid out and rendered at the device's scale (the QR code is read from
 * those pixels, tests/browser/qr.ts).
 */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  const path = join(ARTIFACTS_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: true, scale: "css" });
  return path;
}

/**
 * Console errors and failed requests of a page, CSP violations included: a strict policy that
 * silently blocked our own script or stylesheet would show up here.
 */
export function collectPageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("console", (msg) => {
    if (msg.type() === "error") errors.push(msg.text());
  });
  page.on("pageerror", (err) => errors.push(err.message));
  return errors;
}

/**
 * A new page in a context of its own (kept in `contexts`, for the caller to close) whose console
 * errors are collected; confirmations are accepted the way a person clicks OK.
 */
export async function openPage(browser: Browser, contexts: BrowserContext[], options: BrowserContextOptions = DESKTOP): Promise<{ page: Page; errors: string[] }> {
  const context = await browser.newContext(options);
  contexts.push(context);
  const page = await context.newPage();
  page.on("dialog", (dialog) => void dialog.accept());
  return { page, errors: collectPageErrors(page) };
}

/** The page must not scroll sideways: everything fits the viewport's width. */
export const fitsWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

/** Kopecks as the Russian pages write them: "4 500,50 ₽" with a narrow no-break space in thousands. */
export const rub = (kopecks: number) => `${Math.floor(kopecks / 100).toLocaleString("ru-RU").replace(/\s/g, "\u202F")},${String(kopecks % 100).padStart(2, "0")}\u00A0₽`;

/**
 * A new browser context (kept in `contexts`, for the caller to close) signed in to the dashboard
 * at `dashboard` in Russian, on the overview; the page's console errors are collected.
 */
export async function signedInDashboard(
  browser: Browser,
  contexts: BrowserContext[],
  at: { dashboard: string; email: string; password: string },
  options: BrowserContextOptions,
): Promise<{ page: Page; errors: string[] }> {
  const context = await browser.newContext(options);
  contexts.push(context);
  const page = await context.newPage();
  const errors = collectPageErrors(page);
  await page.goto(`${at.dashboard}/login`);
  await page.getByLabel("Email").fill(at.email);
  await page.getByLabel("Пароль").fill(at.password);
  await page.getByRole("button", { name: "Войти" }).click();
  await page.getByRole("heading", { level: 1, name: "Обзор" }).waitFor({ timeout: 30_000 });
  return { page, errors };
}
