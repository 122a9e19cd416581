import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { rpcs, type Payment } from "@payaccept/contracts";
import { moscowDay } from "@payaccept/domain";
import { startReceiver, type Receiver } from "../services/webhook-dispatcher/test-support/receiver.ts";
import { cancelPayment, createPayment } from "./browser/shop-fixtures.ts";
import { DashboardClient, text, uniqueEmail } from "./dashboard-client.ts";
import { ENGINES, sqliteRunOnly } from "./harness/engines.ts";
import { eventually, Stack, STACK_START_MS } from "./harness/stack.ts";

/**
 * The merchant's payments pages over the real services, once with every store on SQLite and once
 * on PostgreSQL: the list's count, sum, sorts, period bounds and keyset pages are SQL each engine
 * answers its own way, and cancel and refund write. A period the page refuses itself and the
 * payments service being down never reach a store: they stay on SQLite only.
 */
// One real stack per engine; bunfig's [test] timeout is not applied by this Bun.
setDefaultTimeout(90_000);

describe.each(ENGINES)("the dashboard's payments pages with payments on %s", (engine) => {
  let stack: Stack;
  let receiver: Receiver;
  let merchant: DashboardClient;

  beforeAll(async () => {
    stack = await Stack.start({ services: ["directory", "dashboard", "payments", "gateway", "webhook-dispatcher", "receipts"], env: { TRUSTED_PROXIES: "127.0.0.1" }, postgres: engine === "postgres" });
    receiver = startReceiver();
    merchant = DashboardClient.of(stack);
    await merchant.signUp(uniqueEmail("payments"));
  }, STACK_START_MS);
  afterAll(async () => {
    receiver?.stop();
    await stack?.stop();
  });

  /** Today's date in Moscow, as the filter's date inputs hold it. */
  const moscowToday = () => moscowDay(Date.now());

  /** Creates `count` payments in parallel batches (the API's per-key limit is far away). */
  async function createMany(apiKey: string, count: number, orderId: (i: number) => string): Promise<Payment[]> {
    const created: Payment[] = [];
    for (let i = 0; i < count; i += 10) {
      const batch = Array.from({ length: Math.min(10, count - i) }, (_, j) => createPayment(stack, apiKey, { orderId: orderId(i + j), amountKopecks: 10_000 + i + j }));
      created.push(...(await Promise.all(batch)));
    }
    return created;
  }

  /** A sandbox payment the buyer has paid (CREATED → PENDING → SUCCESS through the real checkout RPCs). */
  async function paidPayment(apiKey: string): Promise<Payment> {
    const payment = await createPayment(stack, apiKey, { amountKopecks: 250_000 });
    await stack.call(rpcs.payments.start, { id: payment.id, method: "SBP" });
    await stack.call(rpcs.payments.sandboxOutcome, { id: payment.id, outcome: "SUCCESS" });
    return payment;
  }

  describe("list", () => {
    let shop: { shopId: string; apiKey: string };
    let payments: Payment[];

    beforeAll(async () => {
      shop = await merchant.createShop("Paged shop");
      payments = await createMany(shop.apiKey, 55, (i) => `list-${String(i).padStart(3, "0")}`);
      for (const p of payments.slice(0, 3)) await cancelPayment(stack, shop.apiKey, p.id);
    }, STACK_START_MS);

    /** The order numbers of a list page, top to bottom. */
    const orders = (html: string) => [...html.matchAll(/\/payments\/[0-9a-f-]{36}">([^<]+)<\/a>/g)].map((m) => m[1]);

    test("pages of fifty, newest first, with the count of the whole filtered set (no sum of unpaid ones) and a way to the next page", async () => {
      const first = await merchant.get(`/shops/${shop.shopId}/payments`);
      expect(first.status).toBe(200);
      const firstText = text(first.html);
      // None of them is paid: the count, and no sum that would read like revenue (their amounts add up to 5 514,85 ₽).
      expect(firstText).toContain("Найдено: 55 платежей");
      expect(firstText).not.toMatch(/на сумму|оплачено|5\u202F514,85/);
      expect(firstText).toContain("Страница 1 из 2");
      expect(orders(first.html)).toHaveLength(50);
      expect(orders(first.html).slice(0, 2)).toEqual(["list-054", "list-053"]);
      expect(firstText).not.toContain("list-004");
      expect(firstText).toContain("Зёрна кофе, 1 кг");
      const second = await merchant.get(`/shops/${shop.shopId}/payments?page=2`);
      expect(orders(second.html)).toEqual(["list-004", "list-003", "list-002", "list-001", "list-000"]);
    });

    test("sorts by time and by amount, both ways; the headings link to the other direction", async () => {
      const page = (sort: string) => merchant.get(`/shops/${shop.shopId}/payments?sort=${sort}`);
      expect(orders((await page("created_asc")).html).slice(0, 2)).toEqual(["list-000", "list-001"]);
      expect(orders((await page("amount_desc")).html).slice(0, 2)).toEqual(["list-054", "list-053"]);
      const smallest = await page("amount_asc");
      expect(orders(smallest.html).slice(0, 2)).toEqual(["list-000", "list-001"]);
      expect(smallest.html).toContain(`href="/shops/${shop.shopId}/payments?sort=amount_desc"`);
      const canceledByAmount = await merchant.get(`/shops/${shop.shopId}/payments?status=CANCELED&sort=amount_desc`);
      expect(orders(canceledByAmount.html)).toEqual(["list-002", "list-001", "list-000"]);
      expect(text(canceledByAmount.html)).toContain("Найдено: 3 платежа");
      expect(text(canceledByAmount.html)).not.toContain("300,03");
    });

    test("status and period filters are the API's; an order number looks one payment up", async () => {
      const canceled = await merchant.get(`/shops/${shop.shopId}/payments?status=CANCELED`);
      expect(text(canceled.html)).toContain("Найдено: 3 ");
      expect(text(canceled.html)).toContain("list-002");
      const both = await merchant.get(`/shops/${shop.shopId}/payments?status=CANCELED&status=CREATED`);
      expect(text(both.html)).toContain("Найдено: 55 ");

      const today = moscowToday();
      expect(text((await merchant.get(`/shops/${shop.shopId}/payments?from=${today}&to=${today}`)).html)).toContain("Найдено: 55 ");
      expect(text((await merchant.get(`/shops/${shop.shopId}/payments?from=2020-01-01&to=2020-12-31`)).html)).toContain("Найдено: 0 ");

      const lookup = await merchant.get(`/shops/${shop.shopId}/payments?orderId=list-017&status=CANCELED`);
      expect(orders(lookup.html)).toEqual(["list-017"]);
      expect(text(lookup.html)).toContain("list-017");
      expect(text((await merchant.get(`/shops/${shop.shopId}/payments?orderId=nope`)).html)).toContain("Платежа с таким номером заказа нет.");
    });

    sqliteRunOnly(engine, () => {
      test("a malformed or reversed period is explained instead of sent", async () => {
        const answer = await merchant.get(`/shops/${shop.shopId}/payments?from=2026-11-30&to=2026-11-01`);
        expect(answer.status).toBe(200);
        expect(text(answer.html)).toContain("Дата «С» позже даты «По».");
        expect(text((await merchant.get(`/shops/${shop.shopId}/payments?from=31.12.2026`)).html)).toContain("Дата «С» — в формате ГГГГ-ММ-ДД.");
      });
    });
  });

  describe("a payment", () => {
    let shop: { shopId: string; apiKey: string };

    beforeAll(async () => {
      shop = await merchant.createShop("Detail shop");
      await merchant.submit(`/shops/${shop.shopId}/webhook`, `/shops/${shop.shopId}/webhook/url`, { webhookUrl: receiver.url });
    }, STACK_START_MS);

    test("its page shows every field of the spec's Payment", async () => {
      const payment = await createPayment(stack, shop.apiKey, {
        orderId: "detail-1",
        amountKopecks: 123_456,
        description: "Зёрна кофе",
        telegramId: "987654321",
        metadata: { cart: "A-17" },
        successUrl: "https://shop.example/ok",
      });
      const page = text((await merchant.get(`/shops/${shop.shopId}/payments/${payment.id}`)).html);
      for (const [label, value] of [
        ["ID платежа", payment.id],
        ["Номер заказа", "detail-1"],
        ["Статус", "Создан"],
        ["Сумма", "1\u202F234,56\u00A0₽"],
        ["Комиссия", "\u00A0₽"],
        ["Описание", "Зёрна кофе"],
        ["Telegram ID", "987654321"],
        ["Метаданные", '"cart": "A-17"'],
        ["После успешной оплаты", "https://shop.example/ok"],
        ["После неудачной оплаты", "— (из настроек магазина)"],
        ["Страница оплаты", payment.payUrl],
        ["Тестовый", "да"],
        ["Оплачен", "—"],
      ] as const) {
        expect(page).toContain(label);
        expect(page).toContain(value);
      }
    });

    test("cancel asks first, then cancels; the CANCELED webhook shows in the payment's deliveries", async () => {
      const payment = await createPayment(stack, shop.apiKey, { orderId: "cancel-me" });
      const base = `/shops/${shop.shopId}/payments/${payment.id}`;
      const confirm = await merchant.get(`${base}/cancel`);
      expect(text(confirm.html)).toContain("Отменить платёж?");
      const canceled = await merchant.post(`${base}/cancel`);
      expect(canceled.status).toBe(303);
      const detail = await merchant.follow(canceled);
      expect(text(detail.html)).toContain("Платёж отменён.");
      expect(text(detail.html)).toContain("Отменён");
      await eventually(async () => text((await merchant.get(base)).html).includes("Доставлен"));
      expect(receiver.requests.some((r) => JSON.parse(r.body).id === payment.id && JSON.parse(r.body).status === "CANCELED")).toBe(true);
    });

    test("a paid payment can be refunded in part, then the rest, after confirmation; anything else is refused with the reason", async () => {
      const payment = await paidPayment(shop.apiKey);
      const base = `/shops/${shop.shopId}/payments/${payment.id}`;
      expect((await merchant.get(base)).html).toContain(`href="${base}/refund"`);
      const form = await merchant.get(`${base}/refund`);
      expect(text(form.html)).toContain("Покупателю можно вернуть до 2\u202F500,00\u00A0₽");
      expect(form.html).toContain('name="amount"');
      expect(form.html).toContain('value="2500,00"');
      const key = /name="idempotencyKey" value="([^"]+)"/.exec(form.html)![1]!;

      const badAmount = await merchant.post(`${base}/refund`, { amount: "десять", idempotencyKey: key });
      expect(badAmount.status).toBe(409);
      expect(text(badAmount.html)).toContain("Укажите сумму возврата в рублях");
      const tooMuch = await merchant.post(`${base}/refund`, { amount: "2500,01", idempotencyKey: key });
      expect(tooMuch.status).toBe(409);
      // Said in Russian from the refusal's code, the amounts as money: no English, no kopeck counts.
      const said = text(tooMuch.html);
      expect(said).toContain(
        "Сумма возврата 2\u202F500,01\u00A0₽ больше, чем осталось вернуть: 2\u202F500,00\u00A0₽ из 2\u202F500,00\u00A0₽ (в незавершённых возвратах — 0,00\u00A0₽).",
      );
      expect(said).not.toMatch(/refund|kopecks|RUB|exceeds/i);

      const part = await merchant.post(`${base}/refund`, { amount: "1000", idempotencyKey: key });
      expect(part.status).toBe(303);
      // The same form sent twice refunds once.
      expect((await merchant.post(`${base}/refund`, { amount: "1000", idempotencyKey: key })).status).toBe(303);
      const partly = await merchant.follow(part);
      // A part refunded is a refund made, not the payment refunded.
      expect(text(partly.html)).toContain("Возврат проведён.");
      expect(text(partly.html)).not.toContain("Платёж возвращён");
      expect(text(partly.html)).toContain("Возвращено");
      expect(text(partly.html)).toContain("1\u202F000,00\u00A0₽");
      expect(partly.html).toContain(`href="${base}/refund"`);
      expect(await stack.call(rpcs.payments.get, { shopId: shop.shopId, id: payment.id })).toMatchObject({ status: "SUCCESS", refundedKopecks: 100_000 });

      const rest = await merchant.get(`${base}/refund`);
      expect(rest.html).toContain('value="1500,00"');
      const refunded = await merchant.post(`${base}/refund`, { amount: "1500,00", idempotencyKey: /name="idempotencyKey" value="([^"]+)"/.exec(rest.html)![1]! });
      expect(refunded.status).toBe(303);
      const detail = await merchant.follow(refunded);
      expect(text(detail.html)).toContain("Возврат проведён.");
      // Its two refunds (rpcs.payments.listRefunds), each with its time, and the history up to the full refund.
      expect(text(detail.html)).toMatch(
        /Возвраты Когда Сумма Статус \d\d\.\d\d\.\d{4} \d\d:\d\d\sМСК 1\u202F000,00\u00A0₽ Проведён \d\d\.\d\d\.\d{4} \d\d:\d\d\sМСК 1\u202F500,00\u00A0₽ Проведён/,
      );
      expect(text(detail.html)).toMatch(/История Создан \S+ \S+\sМСК Оплачен \S+ \S+\sМСК Возвращён \S+ \S+\sМСК/);
      expect(detail.html).not.toContain(`href="${base}/refund"`);
      expect(await stack.call(rpcs.payments.get, { shopId: shop.shopId, id: payment.id })).toMatchObject({ status: "REFUNDED", refundedKopecks: 250_000 });

      const unpaid = await createPayment(stack, shop.apiKey);
      await merchant.get(`/shops/${shop.shopId}/payments/${unpaid.id}/refund`);
      const refused = await merchant.post(`/shops/${shop.shopId}/payments/${unpaid.id}/refund`, { amount: "10" });
      expect(refused.status).toBe(409);
      expect(text(refused.html)).toContain("Вернуть можно только оплаченный платёж, а этот — в статусе «Создан».");
    });

    test("a payment id that is not a UUID is simply not found", async () => {
      expect((await merchant.get(`/shops/${shop.shopId}/payments/not-a-uuid`)).status).toBe(404);
    });
  });

  describe("CSV export", () => {
    test("the period streams in keyset pages: every payment once, oldest first, formulas neutralised", async () => {
      const shop = await merchant.createShop("Export shop");
      const payments = await createMany(shop.apiKey, 230, (i) => (i === 7 ? "=HYPERLINK(\"http://evil\")" : i === 8 ? "+79001234567" : `csv-${i}`));
      await cancelPayment(stack, shop.apiKey, payments[100]!.id);

      const answer = await merchant.get(`/shops/${shop.shopId}/payments.csv`);
      expect(answer.status).toBe(200);
      expect(answer.headers.get("content-type")).toBe("text/csv; charset=utf-8");
      expect(answer.headers.get("content-disposition")).toMatch(/^attachment; filename="payments-.*\.csv"$/);
      const lines = answer.html.replace(/^\uFEFF/, "").trimEnd().split("\r\n");
      expect(lines[0]).toBe("id,orderId,status,amountKopecks,commissionKopecks,description,method,telegramId,metadata,successUrl,failUrl,payUrl,isTest,paidAt,createdAt,refundedKopecks,receipts,customerId,paymentMethodId,merchantInitiated,heldKopecks,captureDeadline,failureCode");
      const oldestFirst = [...payments].sort((x, y) => x.createdAt.localeCompare(y.createdAt) || x.id.localeCompare(y.id));
      expect(lines.slice(1).map((l) => l.split(",")[0])).toEqual(oldestFirst.map((p) => p.id));
      expect(answer.html).toContain(`,"'=HYPERLINK(""http://evil"")",`);
      expect(answer.html).toContain(",'+79001234567,");

      const canceled = await merchant.get(`/shops/${shop.shopId}/payments.csv?status=CANCELED`);
      const canceledLines = canceled.html.trimEnd().split("\r\n");
      expect(canceledLines).toHaveLength(2);
      expect(canceledLines[1]).toContain(`${payments[100]!.id},csv-100,CANCELED,`);

      const today = moscowToday();
      expect((await merchant.get(`/shops/${shop.shopId}/payments.csv?from=2020-01-01&to=2020-01-31`)).html.trimEnd().split("\r\n")).toHaveLength(1);
      const fromToday = await merchant.get(`/shops/${shop.shopId}/payments.csv?from=${today}&to=${today}`);
      expect(fromToday.html.trimEnd().split("\r\n")).toHaveLength(231);
      expect(fromToday.headers.get("content-disposition")).toBe(`attachment; filename="payments-${shop.shopId}-${today}_${today}.csv"`);
    });
  });

  sqliteRunOnly(engine, () => {
    describe("when the payments service is down", () => {
      test("the list says so in the page, detail and export answer 503 with a clear message, and all recovers", async () => {
        const shop = await merchant.createShop("Outage shop");
        const payment = await createPayment(stack, shop.apiKey);
        await stack.kill("payments");
        try {
          const list = await merchant.get(`/shops/${shop.shopId}/payments`);
          expect(list.status).toBe(200);
          expect(text(list.html)).toContain("Сервис платежей сейчас не отвечает");
          for (const path of [`/shops/${shop.shopId}/payments/${payment.id}`, `/shops/${shop.shopId}/payments.csv`]) {
            const answer = await merchant.get(path);
            expect(answer.status).toBe(503);
            expect(text(answer.html)).toContain("Сервис платежей сейчас не отвечает. Попробуйте через минуту.");
            expect(answer.html).not.toMatch(/at .*\.ts:\d+/);
          }
        } finally {
          await stack.restart("payments");
        }
        expect(text((await merchant.get(`/shops/${shop.shopId}/payments`)).html)).toContain("Найдено: 1 ");
      });
    });
  });
});
