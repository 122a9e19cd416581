import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Kvm } from "@nats-io/kv";
import { rpcs, shopKvKey, ShopRecord } from "@payaccept/contracts";
import { hmacSha256Hex } from "@payaccept/platform";
import { startReceiver, type Receiver } from "../services/webhook-dispatcher/test-support/receiver.ts";
import { cancelPayment, createPayment } from "./browser/shop-fixtures.ts";
import { DashboardClient, text, uniqueEmail } from "./dashboard-client.ts";
import { ENGINES, sqliteRunOnly } from "./harness/engines.ts";
import { eventually, Stack, STACK_START_MS } from "./harness/stack.ts";

// Real stacks: the Webhook tab's writes (directory, deliveries) on both engines; bunfig's [test] timeout is not applied by this Bun.
setDefaultTimeout(90_000);

const SECRET = /whsec_[A-Za-z0-9_-]{43}/;

describe.each(ENGINES)("Webhook tab on a stack whose receivers run on loopback, stores on %s", (engine) => {
  let stack: Stack;
  let receiver: Receiver;
  /** What the receiver answers next; tests switch it. */
  let reply = 200;
  let merchant: DashboardClient;
  let shop: { shopId: string; apiKey: string };
  let tab: string;

  const signingSecret = async () => ShopRecord.parse((await (await new Kvm(stack.nc).open("directory")).get(shopKvKey(shop.shopId)))!.json()).signingSecret;

  beforeAll(async () => {
    stack = await Stack.start({ services: ["directory", "dashboard", "payments", "gateway", "webhook-dispatcher"], env: { TRUSTED_PROXIES: "127.0.0.1" }, postgres: engine === "postgres" });
    receiver = startReceiver(() => new Response("ok", { status: reply }));
    merchant = DashboardClient.of(stack);
    await merchant.signUp(uniqueEmail("hooks"));
    shop = await merchant.createShop("Hooked shop");
    tab = `/shops/${shop.shopId}/webhook`;
  }, STACK_START_MS);
  afterAll(async () => {
    receiver?.stop();
    await stack?.stop();
  });

  test("without a URL the test webhook says to set one; the URL is saved and shown", async () => {
    const test = await merchant.follow(await merchant.submit(tab, `${tab}/test`));
    expect(text(test.html)).toContain("Сначала укажите URL вебхука.");
    const saved = await merchant.follow(await merchant.submit(tab, `${tab}/url`, { webhookUrl: receiver.url }));
    expect(text(saved.html)).toContain("Сохранено.");
    expect(saved.html).toContain(`value="${receiver.url}"`);
  });

  test("the signing secret is hidden until asked for with a POST, then matches the signatures; rotation replaces it", async () => {
    const secret = await signingSecret();
    expect((await merchant.get(tab)).html).not.toContain(secret);
    const revealed = await merchant.follow(await merchant.post(`${tab}/secret`));
    expect(SECRET.exec(revealed.html)?.[0]).toBe(secret);
    expect((await merchant.get(tab)).html).not.toContain(secret);

    const before = receiver.requests.length;
    await merchant.post(`${tab}/test`);
    const sent = receiver.requests[before]!;
    expect(sent.headers["x-signature"]).toBe(hmacSha256Hex(secret, sent.body));
    expect(JSON.parse(sent.body)).toMatchObject({ test: true });

    const rotated = await merchant.follow(await merchant.submit(tab, `${tab}/secret/rotate`));
    const fresh = SECRET.exec(rotated.html)?.[0];
    expect(text(rotated.html)).toContain("Секрет сменён.");
    expect(fresh).not.toBe(secret);
    expect(await signingSecret()).toBe(fresh!);
  });

  // The test webhook is sent at once and never stored as a delivery.
  sqliteRunOnly(engine, () => {
    test("Send test webhook shows the receiver's HTTP code, response time and when it was sent", async () => {
      reply = 200;
      const ok = await merchant.follow(await merchant.submit(tab, `${tab}/test`));
      expect(text(ok.html)).toMatch(/Ваш сервер ответил HTTP 200 за \d+ мс\. Отправлен \d\d\.\d\d\.\d{4} \d\d:\d\d\sМСК/);
      reply = 503;
      const failed = await merchant.follow(await merchant.submit(tab, `${tab}/test`));
      expect(text(failed.html)).toMatch(/Ваш сервер ответил HTTP 503 за \d+ мс\./);
      reply = 200;
    });

    test("a receiver that refuses the connection is said in words, with the system's code after them", async () => {
      // Nothing listens on port 1 of loopback: the connection is refused at once.
      await merchant.submit(tab, `${tab}/url`, { webhookUrl: "http://127.0.0.1:1/hook" });
      const refused = text((await merchant.follow(await merchant.submit(tab, `${tab}/test`))).html);
      expect(refused).toContain("Не удалось соединиться: сервер отказал в соединении (ECONNREFUSED).");
      await merchant.get(`${tab}?lang=en`);
      const inEnglish = text((await merchant.follow(await merchant.submit(tab, `${tab}/test`))).html);
      expect(inEnglish).toContain("Could not connect: the server refused the connection (ECONNREFUSED).");
      await merchant.get(`${tab}?lang=ru`);
      await merchant.submit(tab, `${tab}/url`, { webhookUrl: receiver.url });
    });
  });

  test("the delivery log shows result, attempts, error and next attempt; resend sends the same body again", async () => {
    reply = 500;
    const payment = await createPayment(stack, shop.apiKey, { orderId: "log-1" });
    await cancelPayment(stack, shop.apiKey, payment.id);
    const failing = await eventually(async () => {
      const page = await merchant.get(tab);
      // The whole row: the attempt and the delivery's error are read from the log as they are written.
      return text(page.html).includes("Ошибка: Ваш сервер ответил HTTP 500.") && page;
    });
    const row = /<tr class="delivery"[\s\S]*?<\/tr>/.exec(failing.html)![0];
    const log = text(row);
    expect(log).toContain("log-1");
    expect(log).toContain("Отменён");
    expect(log).toContain("Ожидает");
    expect(log).toMatch(/Следующая попытка: \d\d\.\d\d\.\d{4} \d\d:\d\d\sМСК/);
    expect(log).toContain("Ошибка: Ваш сервер ответил HTTP 500.");
    expect(log).toMatch(/HTTP 500 · \d+ мс/);

    reply = 200;
    const deliveryId = /data-delivery="([^"]+)"/.exec(failing.html)![1]!;
    const before = receiver.requests.filter((r) => JSON.parse(r.body).id === payment.id);
    const resent = await merchant.post(`${tab}/deliveries/${deliveryId}/resend`, { back: "webhook" });
    expect(resent.status).toBe(303);
    expect(text((await merchant.follow(resent)).html)).toContain("Вебхук поставлен в очередь на повторную отправку.");
    const again = await eventually(() => {
      const sent = receiver.requests.filter((r) => JSON.parse(r.body).id === payment.id);
      return sent.length > before.length && sent;
    });
    expect(again.at(-1)!.body).toBe(before[0]!.body);
    const delivered = await eventually(async () => {
      const page = text((await merchant.get(tab)).html);
      return page.includes("Доставлен") && page;
    });
    expect(delivered).toContain("Повтор 1, попытка 1");
  });

  test("a delivery to a shop without a URL is logged as not sent, in Russian from the stored code, not as an error", async () => {
    const bare = await merchant.createShop("Shop without a URL");
    const bareTab = `/shops/${bare.shopId}/webhook`;
    const payment = await createPayment(stack, bare.apiKey, { orderId: "no-url-1" });
    await cancelPayment(stack, bare.apiKey, payment.id);
    const page = await eventually(async () => {
      const html = (await merchant.get(bareTab)).html;
      return html.includes('class="delivery"') && html.includes("Не указан URL вебхука.") && html;
    });
    const rowHtml = /<tr class="delivery"[\s\S]*?<\/tr>/.exec(page)![0];
    const row = text(rowHtml);
    expect(row).toContain("no-url-1");
    expect(row).toContain("Не отправлен");
    expect(row).toContain("Не указан URL вебхука.");
    // Nothing failed: the shop has no endpoint. No "Ошибка", no red in the result or the attempts.
    expect(row).not.toContain("Ошибка");
    const result = /<td data-label="Результат">[\s\S]*?<\/td><td data-label="Попытки"[\s\S]*?<\/td>/.exec(rowHtml)![0];
    expect(result).not.toMatch(/error-text|badge bad/);
    expect(text((await merchant.get(`${bareTab}?failed=1`)).html)).not.toContain("no-url-1");
    // Nothing was sent, so there is no reply time to show ("нет ответа · 0 мс" read as a server asked).
    expect(row).toContain("не отправлен");
    expect(row).not.toMatch(/нет ответа|0 мс/);
    expect(row).not.toMatch(/no webhook URL|configured/);
    const [delivery] = (await stack.call(rpcs.webhooks.log, { shopId: bare.shopId, paymentId: payment.id, limit: 5 })).items;
    expect(delivery).toMatchObject({ lastError: "no webhook URL configured", lastErrorCode: "WEBHOOK_URL_MISSING", lastErrorParams: {} });
  });

  test("the log filters on the server: event status, failing only, a payment by order number or id", async () => {
    reply = 500;
    const failing = await createPayment(stack, shop.apiKey, { orderId: "filter-fail" });
    await cancelPayment(stack, shop.apiKey, failing.id);
    await eventually(async () => text((await merchant.get(`${tab}?failed=1`)).html).includes("filter-fail"));
    reply = 200;
    const rows = async (query: string) => [...(await merchant.get(`${tab}?${query}`)).html.matchAll(/<tr class="delivery"[\s\S]*?<\/tr>/g)].map((m) => text(m[0]));
    const failingOnly = await rows("failed=1");
    expect(failingOnly.length).toBe(1);
    expect(failingOnly[0]).toContain("filter-fail");
    expect((await rows("payment=log-1")).every((r) => r.includes("log-1"))).toBe(true);
    expect((await rows(`payment=${failing.id}`)).map((r) => r.includes("filter-fail"))).toEqual([true]);
    expect(await rows("status=SUCCESS")).toEqual([]);
    expect((await rows("status=CANCELED")).length).toBe(2);
    const form = (await merchant.get(`${tab}?failed=1&status=CANCELED&payment=log-1`)).html;
    expect(form).toContain('<option value="CANCELED" selected="">');
    expect(form).toMatch(/name="failed" value="1" checked/);
  });

  // The dispatcher is down: no store answers.
  sqliteRunOnly(engine, () => {
    test("with the webhook service down the tab still opens and says so; the test webhook answers 503", async () => {
      await stack.kill("webhook-dispatcher");
      try {
        const page = await merchant.get(tab);
        expect(page.status).toBe(200);
        expect(text(page.html)).toContain("Сервис вебхуков сейчас не отвечает");
        expect(page.html).toContain(`value="${receiver.url}"`);
        const test = await merchant.post(`${tab}/test`);
        expect(test.status).toBe(503);
        expect(text(test.html)).toContain("Сервис вебхуков не ответил вовремя, и мы не знаем, выполнено ли действие.");
      } finally {
        await stack.restart("webhook-dispatcher");
      }
      const { items } = await stack.call(rpcs.webhooks.log, { shopId: shop.shopId });
      expect(items.length).toBeGreaterThan(0);
    });
  });
});

// The dashboard's own checks of an address or a link, on SQLite only: a saved one is a write of the
// directory the Webhook tab above already makes on both engines.
describe("Webhook URL rules (private addresses not allowed)", () => {
  let stack: Stack;
  let merchant: DashboardClient;

  beforeAll(async () => {
    stack = await Stack.start({ services: ["directory", "dashboard"], env: { TRUSTED_PROXIES: "127.0.0.1", WEBHOOK_ALLOW_PRIVATE: "0" } });
    merchant = DashboardClient.of(stack);
    await merchant.signUp(uniqueEmail("rules"));
  }, STACK_START_MS);
  afterAll(() => stack?.stop());

  test("a live shop needs a public https address; every problem is listed next to the field, in Russian", async () => {
    const live = await merchant.createShop("Live shop", "live");
    const tab = `/shops/${live.shopId}/webhook`;
    const refused = await merchant.submit(tab, `${tab}/url`, { webhookUrl: "http://user:pw@10.0.0.5/hook" });
    expect(refused.status).toBe(400);
    const problems = text(refused.html);
    expect(problems).toContain("URL вебхука: нужен адрес https://");
    expect(problems).toContain("URL вебхука: адрес не должен содержать логин и пароль");
    expect(problems).toContain("URL вебхука: адрес должен быть публичным, не из внутренней сети");
    expect(refused.html).toContain('value="http://user:pw@10.0.0.5/hook"');
    expect((await merchant.submit(tab, `${tab}/url`, { webhookUrl: "https://shop.example.com/hooks" })).status).toBe(303);
  });

  test("a sandbox shop may use http, but never a private address", async () => {
    const sandbox = await merchant.createShop("Sandbox shop");
    const tab = `/shops/${sandbox.shopId}/webhook`;
    expect((await merchant.submit(tab, `${tab}/url`, { webhookUrl: "http://shop.example.com/hooks" })).status).toBe(303);
    const loopback = await merchant.submit(tab, `${tab}/url`, { webhookUrl: "http://127.0.0.1:8080/hooks" });
    expect(loopback.status).toBe(400);
    expect(text(loopback.html)).toContain("адрес должен быть публичным");
  });

  test("shop settings follow the API's return-link rules", async () => {
    const { shopId } = await merchant.createShop("Links shop");
    const refused = await merchant.submit(`/shops/${shopId}`, `/shops/${shopId}/settings`, { name: "Links shop", successUrl: "http://shop.example/ok", failUrl: "tg://resolve?domain=shop" });
    expect(refused.status).toBe(400);
    expect(text(refused.html)).toContain("Ссылка после успешной оплаты: нужна ссылка https://, t.me/… или tg://…");
    // Plain text inputs: a browser would block t.me/… in type="url" before the server could accept it.
    expect((await merchant.get(`/shops/${shopId}`)).html).toMatch(/name="successUrl" type="text"[\s\S]*name="failUrl" type="text"/);
    const telegram = await merchant.submit(`/shops/${shopId}`, `/shops/${shopId}/settings`, { name: "Links shop", successUrl: "t.me/coffee_bot?start=paid", failUrl: "" });
    expect(telegram.status).toBe(303);
    expect((await merchant.follow(telegram)).html).toContain('value="t.me/coffee_bot?start=paid"');
    const saved = await merchant.submit(`/shops/${shopId}`, `/shops/${shopId}/settings`, { name: "Links shop", successUrl: "https://shop.example/ok", failUrl: "tg://resolve?domain=shop" });
    expect(saved.status).toBe(303);
    const card = await merchant.follow(saved);
    expect(card.html).toContain('value="https://shop.example/ok"');
    expect(card.html).toContain('value="tg://resolve?domain=shop"');
  });
});
