import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Kvm } from "@nats-io/kv";
import { Balance, rpcs, shopKvKey, ShopRecord } from "@payaccept/contracts";
import { formatRubles } from "@payaccept/web-ui";
import { paymentEvent } from "../services/balance/src/testing.ts";
import { BalanceFeed, enterPayoutDetails, justNow } from "./balance-fixtures.ts";
import { DashboardClient, text, uniqueEmail } from "./dashboard-client.ts";
import { Stack, STACK_START_MS } from "./harness/stack.ts";

// One real stack for the file; bunfig's [test] timeout is not applied by this Bun.
setDefaultTimeout(90_000);

let stack: Stack;
let feed: BalanceFeed;
let merchant: DashboardClient;
let apiKey: string;
let accountId: string;

const apiBalance = async () => Balance.parse(await (await stack.api(apiKey, "/v1/balance")).json());
const rub = (kopecks: number) => formatRubles(kopecks, "ru");

beforeAll(async () => {
  stack = await Stack.start({ services: ["directory", "dashboard", "balance", "gateway"], env: { TRUSTED_PROXIES: "127.0.0.1", HOLD_HOUR: "12" } });
  feed = await BalanceFeed.open(stack);
  merchant = DashboardClient.of(stack);
  await merchant.signUp(uniqueEmail("money"));
  const shop = await merchant.createShop("Money shop", "live");
  apiKey = shop.apiKey;
  accountId = ShopRecord.parse((await (await new Kvm(stack.nc).open("directory")).get(shopKvKey(shop.shopId)))!.json()).accountId;
  await enterPayoutDetails(stack, accountId);
  // Earlier days' sales (released) and a sale of today (frozen until tomorrow's hold hour).
  await feed.fund(accountId, 150_000);
  await feed.publish(paymentEvent({ accountId, shopId: shop.shopId, paidAt: justNow(), amountKopecks: 40_000, commissionKopecks: 280 }));
  await feed.consumed();
}, STACK_START_MS);
afterAll(() => stack?.stop());

describe("balance", () => {
  test("shows the same figures as GET /v1/balance and explains the hold in words", async () => {
    const api = await apiBalance();
    expect(api).toEqual({ availableKopecks: 150_000, frozenKopecks: 39_720, holdHour: 12 });
    const page = text((await merchant.get("/balance")).html);
    expect(page).toContain(`Доступно к выводу ${rub(api.availableKopecks)}`);
    expect(page).toContain(`Заморожено ${rub(api.frozenKopecks)}`);
    expect(page).toContain("Деньги за оплаты дня становятся доступны к выводу на следующий день в 12:00 МСК.");
    expect(page).toMatch(/Сегодняшние оплаты \(\d\d\.\d\d\.\d{4}\) станут доступны \d\d\.\d\d\.\d{4} в 12:00 МСК\./);
    // A merchant trying a sandbox shop sees its payments paid and the balance still 0: the page says why.
    expect(page).toContain("Баланс общий для всех боевых магазинов кабинета; тестовые платежи в него не входят.");
  });

  test("a payout above the available amount is refused with the reason; nothing is paid", async () => {
    const refused = await merchant.submit("/balance", "/balance/payouts", { amount: "1500,01", idempotencyKey: "too-much" });
    expect(refused.status).toBe(400);
    expect(text(refused.html)).toContain(`Сумма выплаты ${rub(150_001)} больше доступного баланса ${rub(150_000)}.`);
    expect(refused.html).toContain('value="1500,01"');
    expect((await apiBalance()).availableKopecks).toBe(150_000);
    const junk = await merchant.submit("/balance", "/balance/payouts", { amount: "много" });
    expect(junk.status).toBe(400);
    expect(text(junk.html)).toContain("Укажите сумму в рублях");
  });

  test("a payout within the available amount is made once, even when the form is sent twice, and listed", async () => {
    await merchant.get("/balance");
    const form = { amount: "500,50", idempotencyKey: "form-1" };
    const [first, second] = [await merchant.post("/balance/payouts", form), await merchant.post("/balance/payouts", form)];
    expect([first.status, second.status]).toEqual([303, 303]);
    const page = await merchant.follow(second);
    expect(text(page.html)).toContain("Выплата создана.");
    expect(text(page.html)).toContain(`${rub(50_050)} Ждёт отправки в банк`);
    const { items } = await stack.call(rpcs.balance.listPayouts, { accountId });
    expect(items.map((p) => p.amountKopecks)).toEqual([50_050]);
    expect((await apiBalance()).availableKopecks).toBe(150_000 - 50_050);
    expect(text(page.html)).toContain(`Доступно к выводу ${rub(150_000 - 50_050)}`);
  });

  test("with the balance service down the page says so and a payout answers 503", async () => {
    await stack.kill("balance");
    try {
      const page = await merchant.get("/balance");
      expect(page.status).toBe(200);
      expect(text(page.html)).toContain("Сервис баланса сейчас не отвечает");
      const payout = await merchant.post("/balance/payouts", { amount: "1", idempotencyKey: "down" });
      expect(payout.status).toBe(503);
      expect(text(payout.html)).toContain("Сервис баланса не ответил вовремя, и мы не знаем, выполнено ли действие.");
    } finally {
      await stack.restart("balance");
    }
    expect((await merchant.get("/balance")).status).toBe(200);
  });
});
