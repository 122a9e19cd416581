import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { Payout, PayoutList, PayoutScheduleView, rpcs } from "@payaccept/contracts";
import { formatRubles } from "@payaccept/web-ui";
import { BalanceFeed, enterPayoutDetails, PAYER_ENV } from "./balance-fixtures.ts";
import { DashboardClient, text, uniqueEmail } from "./dashboard-client.ts";
import { debitLineOf, readExchangeFile, statementFile } from "./exchange-file-reader.ts";
import { eventually, Stack } from "./harness/stack.ts";

setDefaultTimeout(120_000);

/**
 * Payouts as people see them, against real processes (directory, dashboard, balance, gateway):
 * the merchant's payout schedule and next payout on the balance page and in the API, a scheduled
 * payout made by the running scheduler, and the operator's day — the exchange file downloaded
 * and read back, the bank's statement uploaded and its report — with the merchant's page then
 * showing the payment order. SQLite: the stores' side runs on both engines elsewhere
 * (payouts-exchange-file, the balance's unit tests).
 */
let stack: Stack;
let feed: BalanceFeed;
let owner: DashboardClient;
let operator: DashboardClient;
let shop: { shopId: string; apiKey: string };
let accountId: string;
const rub = (kopecks: number) => formatRubles(kopecks, "ru");

beforeAll(async () => {
  stack = await Stack.start({
    services: ["directory", "dashboard", "balance", "gateway"],
    env: { TRUSTED_PROXIES: "127.0.0.1", ...PAYER_ENV, PAYOUT_ACCOUNT_HOLD: "1s", PAYOUT_SCHEDULE_TICK: "300ms" },
  });
  feed = await BalanceFeed.open(stack);
  owner = DashboardClient.of(stack);
  await owner.signUp(uniqueEmail("payouts-owner"));
  shop = await owner.createShop("Payouts shop", "live");
  accountId = (await stack.call(rpcs.directory.getShop, { shopId: shop.shopId })).shop.accountId;
  const email = uniqueEmail("payouts-operator");
  await stack.call(rpcs.dashboard.createOperator, { email, password: "operator password 1" }, 30_000);
  operator = DashboardClient.of(stack);
  await operator.signIn(email, "operator password 1");
});
afterAll(() => stack?.stop());

describe("payouts in the dashboard", () => {
  test("without payout details the page asks for them instead of offering a payout", async () => {
    const page = text((await owner.get("/balance")).html);
    expect(page).toContain("Чтобы выводить деньги, сначала укажите реквизиты для выплат.");
    expect(page).toContain("Реквизиты ещё не указаны — без них выплаты не отправляются.");
  });

  test("the schedule: set on the balance page, shown with its next payout there and in the API; the running scheduler makes its payout", async () => {
    await enterPayoutDetails(stack, accountId);
    await feed.fund(accountId, 500_000);
    const saved = await owner.submit("/balance", "/balance/schedule", { mode: "weekly", weekday: "5", time: "10:00", minimum: "1000" });
    expect(saved.status).toBe(303);
    const page = text((await owner.follow(saved)).html);
    expect(page).toContain("Расписание выплат сохранено.");
    expect(page).toContain(`Каждую пятницу в 10:00 МСК выплачивается всё доступное сверх ${rub(100_000)}`);
    const view = PayoutScheduleView.parse(await (await stack.api(shop.apiKey, "/v1/payout-schedule")).json());
    expect(view.schedule).toEqual({ frequency: "weekly", weekday: 5, time: "10:00", minimumKopecks: 100_000 });
    const next = new Date(Date.parse(view.nextPayoutAt!) + 3 * 3_600_000);
    expect([next.getUTCDay(), next.toISOString().slice(11, 16)]).toEqual([5, "10:00"]);
    expect(page).toContain(`Следующая выплата по расписанию: ${next.toISOString().slice(8, 10)}.${next.toISOString().slice(5, 7)}.${next.toISOString().slice(0, 4)} 10:00\u00A0МСК.`);
    expect((await owner.submit("/balance", "/balance/schedule", { mode: "daily", weekday: "1", time: "25:00", minimum: "0" })).status).toBe(400);

    // Friday is days away: the run is made due now in the ledger's own file, and the running scheduler takes it.
    const db = new Database(join(stack.dataDir, "balance.db"));
    try {
      db.run("UPDATE payout_schedules SET next_run_at = ? WHERE account_id = ?", [Date.now() - 1000, accountId]);
    } finally {
      db.close();
    }
    const scheduled = await eventually(async () => PayoutList.parse(await (await stack.api(shop.apiKey, "/v1/payouts")).json()).items.find((p) => p.scheduled), 20_000);
    expect(scheduled).toMatchObject({ amountKopecks: 400_000, status: "PENDING", scheduled: true });
    expect((await feed.balanceOf(accountId)).availableKopecks).toBe(100_000);
    expect(text((await owner.get("/balance")).html)).toContain(`${rub(400_000)} Ждёт отправки в банк по расписанию`);
  });

  test("the operator's day: the exchange file downloaded and read back, the statement uploaded; the merchant's page shows the payment order", async () => {
    const { items } = PayoutList.parse(await (await stack.api(shop.apiKey, "/v1/payouts")).json());
    const payout = items[0]!;
    // The first payout account's hold (PAYOUT_ACCOUNT_HOLD, 1 s here) ends before anything is sent.
    await eventually(async () => (await stack.call(rpcs.directory.getAccountDetails, { accountId })).payoutsHeldUntil === null, 20_000);
    const ops = text((await operator.get("/ops/payouts")).html);
    expect(ops).toContain("Ждут отправки в банк");
    expect(ops).toContain(accountId);

    const made = await operator.submit("/ops/payouts", "/ops/payouts/export");
    expect(made.status).toBe(303);
    const after = await operator.follow(made);
    expect(text(after.html)).toContain(`Файл сформирован: платёжных поручений — 1, на сумму ${rub(payout.amountKopecks)}.`);
    const link = /href="(\/ops\/payouts\/batches\/[0-9a-f-]{36}\/file)"/.exec(after.html)![1]!;
    const file = await operator.download(link);
    expect(file.headers.get("Content-Type")).toBe("text/plain; charset=windows-1251");
    expect(file.headers.get("Content-Disposition")).toStartWith('attachment; filename="payouts-');
    const [doc] = readExchangeFile(file.bytes).documents;
    const sent = Payout.parse(await (await stack.api(shop.apiKey, `/v1/payouts/${payout.id}`)).json());
    expect(doc).toMatchObject({ Номер: String(sent.order!.number), Сумма: "4000.00", ПолучательСчет: sent.order!.account, НазначениеПлатежа: sent.order!.purpose });

    const line = debitLineOf(sent, { account: PAYER_ENV.PAYOUT_PAYER_ACCOUNT, bik: PAYER_ENV.PAYOUT_PAYER_BIK }, "01.12.2026");
    const statement = (documents: (typeof line)[]) => statementFile({ account: PAYER_ENV.PAYOUT_PAYER_ACCOUNT, from: "01.12.2026", to: "01.12.2026", openingKopecks: 10_000_000, documents });
    await operator.get("/ops/payouts");
    const edited = await operator.postFile("/ops/payouts/statement", "statement", { name: "statement.txt", bytes: statement([{ ...line, amount: "40000.00" }]) });
    expect(edited.status).toBe(400);
    expect(text(edited.html)).toContain(`выплата ${sent.order!.reference} на сумму ${rub(400_000)}, а в выписке — ${rub(4_000_000)}. Выписка изменена. Ничего не загружено.`);
    const imported = await operator.postFile("/ops/payouts/statement", "statement", { name: "statement.txt", bytes: statement([line]) });
    expect(imported.status).toBe(200);
    expect(text(imported.html)).toContain(`Выписка загружена`);
    expect(text(imported.html)).toContain(`Выплачено: 1`);
    const again = await operator.postFile("/ops/payouts/statement", "statement", { name: "statement.txt", bytes: statement([line]) });
    expect(text(again.html)).toContain("Эта выписка уже была загружена — ничего не изменилось");

    const balance = text((await owner.get("/balance")).html);
    expect(balance).toContain(`${rub(400_000)} Выплачено по расписанию п/п № ${sent.order!.number}`);
    expect(balance).toContain(`на счёт •• 0001, ${sent.order!.reference}`);
    // A merchant's page is not the operator's.
    expect((await owner.get("/ops/payouts")).status).toBe(404);
  });
});
