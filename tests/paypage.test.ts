import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { rpcs } from "@payaccept/contracts";
import { eventually, Stack, type ShopCreated, STACK_START_MS } from "./harness/stack.ts";
import { cancelPayment, createPayment, statusOf } from "./browser/shop-fixtures.ts";
import { Buyer } from "./paypage-buyer.ts";

// Real processes (and a real browser) take longer than bun's 5 s default; bounded all the same.
setDefaultTimeout(60_000);

/**
 * The payment page over plain HTTP against the whole real stack: what a browser without JS, or a
 * hostile client, gets. The real browser flows are in paypage-browser.test.ts.
 */

let stack: Stack;
let sandbox: ShopCreated;
let live: ShopCreated;
let paypage: string;

beforeAll(async () => {
  stack = await Stack.start();
  paypage = stack.url("paypage");
  sandbox = await stack.createShop({ name: "Кофейня «Зерно» <script>", sandbox: true, methods: ["SBP", "CARD"] });
  live = await stack.createShop({ name: "Чайная лавка", sandbox: false, methods: ["SBP", "CARD"] });
}, STACK_START_MS);

afterAll(async () => {
  await stack?.stop();
});

const pathOf = (payUrl: string) => new URL(payUrl).pathname;

describe("the page", () => {
  test("shows the shop, the description and the amount in rubles, all escaped, with a test badge in a sandbox", async () => {
    const p = await createPayment(stack, sandbox.apiKey, { description: "<img src=x onerror=alert(1)>", amountKopecks: 123456 });
    const { res, html } = await new Buyer(paypage).page(pathOf(p.payUrl));
    expect(res.status).toBe(200);
    expect(html).toContain("Кофейня «Зерно» &lt;script&gt;");
    expect(html).toContain("&lt;img src=x onerror=alert(1)&gt;");
    expect(html).not.toContain("<img src=x");
    expect(html).toContain("1\u202F234,56\u00A0₽");
    expect(html).toContain("Тестовый платёж");
    expect(html).toContain('lang="ru"');
  });

  test("sends a strict CSP and the other protective headers", async () => {
    const p = await createPayment(stack, live.apiKey);
    const res = await fetch(`${paypage}${pathOf(p.payUrl)}`);
    const csp = res.headers.get("content-security-policy")!;
    for (const directive of ["default-src 'self'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'", "form-action 'self'", "base-uri 'none'"]) {
      expect(csp).toContain(directive);
    }
    expect(csp).not.toContain("unsafe-inline");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
    expect(res.headers.get("cache-control")).toBe("no-store");
  });

  test("?lang=en switches to English and a cookie remembers it", async () => {
    const p = await createPayment(stack, live.apiKey);
    const buyer = new Buyer(paypage);
    const first = await buyer.page(`${pathOf(p.payUrl)}?lang=en`);
    expect(first.res.headers.get("set-cookie")).toContain("pp_lang=en");
    expect(first.html).toContain("₽1,234.56");
    expect(first.html).toContain("Choose how to pay");
    const again = await buyer.page(pathOf(p.payUrl));
    expect(again.html).toContain('lang="en"');
    expect((await new Buyer(paypage).page(pathOf(p.payUrl))).html).toContain("Выберите способ оплаты");
  });

  test("offers only the shop's enabled methods; a fixed method gets a single self-starting form", async () => {
    const cardOnly = await stack.createShop({ name: "Только карты", sandbox: false, methods: ["CARD"] });
    const choice = await new Buyer(paypage).page(pathOf((await createPayment(stack, cardOnly.apiKey)).payUrl));
    expect(choice.html).toContain('value="CARD"');
    expect(choice.html).not.toContain('value="SBP"');
    const fixed = await new Buyer(paypage).page(pathOf((await createPayment(stack, live.apiKey, { method: "SBP" })).payUrl));
    expect(fixed.html).toContain("data-autostart");
    expect(fixed.html).toContain("Оплатить через СБП");
    expect(fixed.html).not.toContain('value="CARD"');
  });
});

describe("starting to pay", () => {
  test("SBP: the start moves CREATED to PENDING and the page shows a QR code, a bank-app link and 20 minutes", async () => {
    const p = await createPayment(stack, live.apiKey);
    const buyer = new Buyer(paypage);
    const { csrf } = await buyer.page(pathOf(p.payUrl));
    const res = await buyer.post(`${pathOf(p.payUrl)}/start`, { csrf: csrf!, method: "SBP" });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe(pathOf(p.payUrl));
    expect(await statusOf(stack, live.apiKey, p.id)).toBe("PENDING");
    const { html } = await buyer.page(pathOf(p.payUrl));
    expect(html).toMatch(/<figure class="qr" role="img" aria-label="QR-код для оплаты через СБП" data-qr-payload="http:\/\/localhost:\d+\/sbp\/[^"]+"><svg /);
    expect(html).toMatch(/class="button primary deeplink" href="http:\/\/localhost:\d+\/sbp\//);
    expect(html).toMatch(/<time datetime="[^"]+" data-expires-at="[^"]+">(20:00|19:5\d)<\/time>/);
    expect(html).toContain('<meta http-equiv="refresh" content="10"/>');
  });

  test("card: the form posts straight to the acquirer, which CSP form-action allows, and carries none of our tokens", async () => {
    const p = await createPayment(stack, live.apiKey, { method: "CARD" });
    const buyer = new Buyer(paypage);
    const { csrf } = await buyer.page(pathOf(p.payUrl));
    await buyer.post(`${pathOf(p.payUrl)}/start`, { csrf: csrf!, method: "CARD" });
    const { res, html } = await buyer.page(pathOf(p.payUrl));
    const acquirerOrigin = new URL(stack.env.ACQUIRER_PUBLIC_URL!).origin;
    const form = /<form method="post" action="([^"]+)" class="card-form"[\s\S]*?<\/form>/.exec(html)!;
    expect(form[1]).toStartWith(`${acquirerOrigin}/card/`);
    for (const field of ['name="pan"', 'name="exp"', 'name="cvc"', 'name="holder"', 'autocomplete="cc-number"']) expect(form[0]).toContain(field);
    expect(form[0]).not.toContain('name="csrf"');
    expect(res.headers.get("content-security-policy")).toContain(`form-action 'self' ${acquirerOrigin}`);
  });

  test("refuses a start without the CSRF token, with another payment's token, or without the cookie", async () => {
    const p = await createPayment(stack, live.apiKey);
    const other = await createPayment(stack, live.apiKey);
    const buyer = new Buyer(paypage);
    await buyer.page(pathOf(p.payUrl));
    const { csrf: otherToken } = await buyer.page(pathOf(other.payUrl));
    const { csrf } = await buyer.page(pathOf(p.payUrl));
    const attempts = [
      await buyer.post(`${pathOf(p.payUrl)}/start`, { method: "SBP" }),
      await buyer.post(`${pathOf(p.payUrl)}/start`, { csrf: otherToken!, method: "SBP" }),
      await new Buyer(paypage).post(`${pathOf(p.payUrl)}/start`, { csrf: csrf!, method: "SBP" }),
    ];
    expect(attempts.map((r) => r.status)).toEqual([403, 403, 403]);
    expect(await attempts[0]!.text()).toContain("Страница устарела");
    expect(await statusOf(stack, live.apiKey, p.id)).toBe("CREATED");
  });

  test("hostile form values get a clear 400 or 413 page and change nothing", async () => {
    const p = await createPayment(stack, sandbox.apiKey);
    const buyer = new Buyer(paypage);
    const { csrf } = await buyer.page(pathOf(p.payUrl));
    const badMethod = await buyer.post(`${pathOf(p.payUrl)}/start`, { csrf: csrf!, method: "<script>alert(1)</script>" });
    const badOutcome = await buyer.post(`${pathOf(p.payUrl)}/sandbox`, { csrf: csrf!, outcome: "' OR 1=1 --" });
    const huge = await buyer.post(`${pathOf(p.payUrl)}/start`, { csrf: csrf!, method: "SBP", pad: "x".repeat(20000) });
    const json = await buyer.post(`${pathOf(p.payUrl)}/start`, JSON.stringify({ csrf, method: "SBP" }), "application/json");
    expect([badMethod.status, badOutcome.status, huge.status, json.status]).toEqual([400, 400, 413, 403]);
    const page = await badMethod.text();
    expect(page).toContain("Неверный запрос");
    // What was wrong, said from the refusal's code in the buyer's language.
    expect(page).toContain("Неизвестный способ оплаты.");
    expect(await badOutcome.text()).toContain("Неизвестный исход.");
    expect(page).not.toContain("<script>alert(1)");
    expect(page).not.toMatch(/at \S+ \(/);
    expect(await statusOf(stack, sandbox.apiKey, p.id)).toBe("CREATED");
  });
});

describe("paths", () => {
  test("a malformed or unknown payment id is a friendly 404 page", async () => {
    for (const path of ["/pay/not-a-uuid", "/pay/%3Cscript%3Ealert(1)%3C%2Fscript%3E", "/pay/..%2F..%2Fetc%2Fpasswd", `/pay/${crypto.randomUUID()}`, "/wp-admin"]) {
      const res = await fetch(`${paypage}${path}`);
      const html = await res.text();
      expect(res.status).toBe(404);
      expect(res.headers.get("content-type")).toContain("text/html");
      expect(html).toContain("Платёж не найден");
      expect(html).not.toContain("<script>alert(1)");
    }
  });

  test("the JSON status endpoint answers in the spec's Error shape", async () => {
    const p = await createPayment(stack, live.apiKey);
    expect(await (await fetch(`${paypage}${pathOf(p.payUrl)}/status`)).json()).toEqual({ status: "CREATED", method: null, expiresAt: null });
    const missing = await fetch(`${paypage}/pay/nope/status`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ statusCode: 404, message: "payment not found", error: "Not Found", code: "PAYMENT_NOT_FOUND", params: {} });
  });
});

describe("switching method", () => {
  test("the PENDING page offers the other method; a switch shows its screen and no refusal", async () => {
    const p = await createPayment(stack, live.apiKey);
    const buyer = new Buyer(paypage);
    const { csrf } = await buyer.page(pathOf(p.payUrl));
    await buyer.post(`${pathOf(p.payUrl)}/start`, { csrf: csrf!, method: "SBP" });
    const sbp = (await buyer.page(pathOf(p.payUrl))).html;
    expect(sbp).toContain('<h2 id="switch-title">Другой способ оплаты</h2>');
    expect(sbp).toMatch(/<button type="submit" name="method" value="CARD"[^>]*><span class="method-label">Оплатить картой<\/span>/);
    const res = await buyer.post(`${pathOf(p.payUrl)}/start`, { csrf: csrf!, method: "CARD" });
    expect(res.headers.get("location")).toBe(pathOf(p.payUrl));
    const card = (await buyer.page(pathOf(p.payUrl))).html;
    expect(card).toContain("Оплата картой");
    expect(card).toContain('data-card-form=""');
    expect(card).not.toContain('class="notice"');
  });

  test("a start with another method that cannot be switched to lands on the current screen with a notice saying why", async () => {
    const p = await createPayment(stack, live.apiKey, { method: "SBP" });
    const buyer = new Buyer(paypage);
    const { csrf } = await buyer.page(pathOf(p.payUrl));
    await buyer.post(`${pathOf(p.payUrl)}/start`, { csrf: csrf!, method: "SBP" });
    // e.g. a form kept from before, in another tab: the merchant fixed SBP for this payment
    const res = await buyer.post(`${pathOf(p.payUrl)}/start`, { csrf: csrf!, method: "CARD" });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe(`${pathOf(p.payUrl)}?tried=CARD`);
    const { html } = await buyer.page(res.headers.get("location")!);
    expect(html).toContain('<p class="notice" role="status">Оплата уже начата другим способом (СБП), и сменить его сейчас нельзя. Продолжите оплату здесь.</p>');
    expect(html).toContain("Оплата через СБП");
    expect(html).not.toContain("switch-title");
    expect(await statusOf(stack, live.apiKey, p.id)).toBe("PENDING");
  });
});

describe("outcomes", () => {
  test("a sandbox SBP payment that expired or was declined promises no late QR payment: a sandbox shows no QR", async () => {
    for (const outcome of ["EXPIRED", "FAILED"] as const) {
      const p = await createPayment(stack, sandbox.apiKey);
      await stack.call(rpcs.payments.start, { id: p.id, method: "SBP" });
      await stack.call(rpcs.payments.sandboxOutcome, { id: p.id, outcome });
      const { html } = await new Buyer(paypage).page(pathOf(p.payUrl));
      expect({ outcome, shown: html.includes(outcome === "EXPIRED" ? "Время оплаты истекло" : "Оплата не прошла") }).toEqual({ outcome, shown: true });
      expect({ outcome, promised: html.includes("по QR-коду") }).toEqual({ outcome, promised: false });
    }
  });

  test("a canceled invoice shows the canceled screen and a start is refused without an error", async () => {
    const p = await createPayment(stack, live.apiKey, { failUrl: "t.me/coffee_bot?start=failed" });
    const buyer = new Buyer(paypage);
    const { csrf } = await buyer.page(pathOf(p.payUrl));
    await cancelPayment(stack, live.apiKey, p.id);
    const start = await buyer.post(`${pathOf(p.payUrl)}/start`, { csrf: csrf!, method: "SBP" });
    expect(start.status).toBe(303);
    const { html } = await buyer.page(pathOf(p.payUrl));
    expect(html).toContain("Счёт отменён");
    expect(html).toContain("оплатить его нельзя");
    expect(html).not.toContain("/start");
    expect(html).toContain('href="https://t.me/coffee_bot?start=failed"');
    expect(await statusOf(stack, live.apiKey, p.id)).toBe("CANCELED");
  });

  test("server-sent events push the new status as soon as it changes", async () => {
    const p = await createPayment(stack, sandbox.apiKey, { method: "SBP", successUrl: "tg://resolve?domain=coffee_bot" });
    await stack.call(rpcs.payments.start, { id: p.id, method: "SBP" });
    const res = await fetch(`${paypage}${pathOf(p.payUrl)}/events`);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let seen = "";
    const readUntil = async (needle: string) => {
      for (let i = 0; i < 50 && !seen.includes(needle); i++) {
        const { value, done } = await reader.read();
        if (done) break;
        seen += value;
      }
      return seen.includes(needle);
    };
    expect(await readUntil('data: {"status":"PENDING","method":"SBP"}')).toBe(true);
    await stack.call(rpcs.payments.sandboxOutcome, { id: p.id, outcome: "SUCCESS" });
    expect(await readUntil('data: {"status":"SUCCESS","method":"SBP"}')).toBe(true);
    await reader.cancel();
    const { html } = await new Buyer(paypage).page(pathOf(p.payUrl));
    expect(html).toContain("Оплата прошла");
    expect(html).toContain('href="tg://resolve?domain=coffee_bot"');
  });
});

describe("when payments is down", () => {
  test("the page says it is temporarily unavailable with 503, and recovers when payments is back", async () => {
    const p = await createPayment(stack, live.apiKey);
    await stack.kill("payments");
    try {
      const res = await fetch(`${paypage}${pathOf(p.payUrl)}`);
      const html = await res.text();
      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).toBe("10");
      expect(html).toContain("Сервис временно недоступен");
      expect(html).not.toMatch(/at \S+ \(/);
      const json = await fetch(`${paypage}${pathOf(p.payUrl)}/status`);
      expect(json.status).toBe(503);
      expect(await json.json()).toMatchObject({ statusCode: 503, error: "Service Unavailable" });
    } finally {
      await stack.restart("payments");
    }
    await eventually(async () => (await fetch(`${paypage}${pathOf(p.payUrl)}`)).status === 200);
  });
});
