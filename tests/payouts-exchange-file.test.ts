import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Balance, Payout, rpcs, StatementReport, WebhookBody } from "@payaccept/contracts";
import { verifyWebhook } from "@payaccept/sdk";
import { startReceiver, type Receiver } from "../services/webhook-dispatcher/test-support/receiver.ts";
import { BalanceFeed, enterPayoutDetails, PAYER_ENV } from "./balance-fixtures.ts";
import { ENGINES } from "./harness/engines.ts";
import { eventually, Stack, type ShopCreated } from "./harness/stack.ts";
import { correspondentKeyValid, debitLineOf, innValid, readExchangeFile, settlementKeyValid, statementFile, type StatementDocument } from "./exchange-file-reader.ts";

setDefaultTimeout(180_000);

/**
 * The exchange-file rail end to end, against real processes (directory, balance, gateway,
 * webhook-dispatcher) and the admin CLI, once on SQLite and once on PostgreSQL: a payout from the
 * available money through the API, the operator's exchange file read back by the test's own
 * reader (every field and control key), the bank's statement imported → PAID with its signed
 * webhook; a returned payout back on the balance exactly once; a statement imported twice; the
 * hold after a change of payout account.
 */
const HOLD = "3s";
const PAYEE_ACCOUNT = "40702810938000000001";
const NEW_ACCOUNT = "40702810238000000002";

describe.each(ENGINES)("payouts through the exchange file (%s)", (engine) => {
  let stack: Stack;
  let feed: BalanceFeed;
  let receiver: Receiver;
  let shop: ShopCreated;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "exchange-"));
    receiver = startReceiver();
    stack = await Stack.start({
      services: ["directory", "balance", "gateway", "webhook-dispatcher"],
      env: { ...PAYER_ENV, PAYOUT_ACCOUNT_HOLD: HOLD, PAYOUT_OUTBOX_SWEEP: "500ms" },
      postgres: engine === "postgres",
    });
    feed = await BalanceFeed.open(stack);
    shop = await stack.createShop({ name: "Payout shop", webhookUrl: receiver.url });
    await enterPayoutDetails(stack, shop.accountId, PAYEE_ACCOUNT);
    await feed.fund(shop.accountId, 1_000_000);
  });
  afterAll(async () => {
    receiver?.stop();
    await stack?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const api = async (path: string, init: { method?: string; json?: unknown } = {}) => stack.api(shop.apiKey, path, { ...init, signal: AbortSignal.timeout(30_000) });
  const payout = async (id: string) => Payout.parse(await (await api(`/v1/payouts/${id}`)).json());
  const available = async () => Balance.parse(await (await stack.call(rpcs.balance.get, { accountId: shop.accountId }))).availableKopecks;
  const admin = async (...args: string[]) => {
    const run = await stack.admin(args);
    if (run.code !== 0) throw new Error(`${args[0]} exited ${run.code}: ${run.stderr}${run.stdout}`);
    return JSON.parse(run.stdout);
  };
  let files = 0;
  /** The operator's daily step: the exchange file written by the admin CLI, read back by the test's own reader. */
  const exportFile = async () => {
    const out = join(dir, `payouts-${++files}.txt`);
    const made = await admin("payout:export", "--out", out, "--json");
    return { made, bytes: made.file ? new Uint8Array(await Bun.file(out).arrayBuffer()) : null };
  };
  const importStatement = async (bytes: Uint8Array) => {
    const path = join(dir, `statement-${++files}.txt`);
    await Bun.write(path, bytes);
    return StatementReport.parse(await admin("payout:import-statement", "--file", path, "--json"));
  };
  /** The webhooks of a payout's statuses this receiver got, each verified with the shop's secret. */
  const webhooksOf = (payoutId: string) =>
    receiver.requests
      .filter((r) => WebhookBody.parse(JSON.parse(r.body)).id === payoutId)
      .map((r) => {
        expect(verifyWebhook(r.body, r.headers, shop.signingSecret).ok).toBe(true);
        return WebhookBody.parse(JSON.parse(r.body));
      });
  const debitOf = (p: Payout) => debitLineOf(p, { account: PAYER_ENV.PAYOUT_PAYER_ACCOUNT, bik: PAYER_ENV.PAYOUT_PAYER_BIK }, "01.12.2026");
  const statementOf = (documents: StatementDocument[]) => statementFile({ account: PAYER_ENV.PAYOUT_PAYER_ACCOUNT, from: "01.12.2026", to: "01.12.2026", openingKopecks: 50_000_000, documents });

  test("a payout from the available money: the exchange file checked field by field, the statement imported → PAID, each step a signed webhook", async () => {
    // The hold of the first payout account passes by itself.
    await eventually(async () => (await stack.call(rpcs.directory.getAccountDetails, { accountId: shop.accountId })).payoutsHeldUntil === null, 20_000);
    const made = await api("/v1/payouts", { method: "POST", json: { amountKopecks: 250_050 } });
    expect(made.status).toBe(201);
    const created = Payout.parse(await made.json());
    expect(created).toMatchObject({ status: "PENDING", amountKopecks: 250_050, order: null, scheduled: false });
    expect(await available()).toBe(1_000_000 - 250_050);

    const { made: exported, bytes } = await exportFile();
    expect(exported.batch).toMatchObject({ orders: 1, totalKopecks: 250_050 });
    const file = readExchangeFile(bytes!);
    const header = Object.fromEntries(file.header);
    expect(header).toMatchObject({ ВерсияФормата: "1.03", Кодировка: "Windows", РасчСчет: PAYER_ENV.PAYOUT_PAYER_ACCOUNT, Документ: "Платежное поручение" });
    expect(file.documents).toHaveLength(1);
    const sent = await payout(created.id);
    expect(sent).toMatchObject({ status: "SENT", order: { rail: "exchange-file", account: PAYEE_ACCOUNT, bik: "044525225" } });
    const doc = file.documents[0]!;
    expect(doc).toMatchObject({
      СекцияДокумент: "Платежное поручение",
      Номер: String(sent.order!.number),
      Дата: sent.order!.date.split("-").reverse().join("."),
      Сумма: "2500.50",
      ПлательщикСчет: PAYER_ENV.PAYOUT_PAYER_ACCOUNT,
      ПлательщикИНН: PAYER_ENV.PAYOUT_PAYER_INN,
      ПлательщикКПП: PAYER_ENV.PAYOUT_PAYER_KPP,
      Плательщик1: PAYER_ENV.PAYOUT_PAYER_NAME,
      ПлательщикБИК: PAYER_ENV.PAYOUT_PAYER_BIK,
      ПлательщикКорсчет: PAYER_ENV.PAYOUT_PAYER_CORR_ACCOUNT,
      ПолучательСчет: PAYEE_ACCOUNT,
      ПолучательИНН: "7707083893",
      ПолучательКПП: "773601001",
      Получатель1: "ООО «Ромашка»",
      ПолучательБИК: "044525225",
      ПолучательКорсчет: "30101810400000000225",
      ВидОплаты: "01",
      Очередность: "5",
    });
    expect(doc.НазначениеПлатежа).toContain(sent.order!.reference);
    expect(doc.НазначениеПлатежа).toContain("Без налога (НДС)");
    expect(doc.НазначениеПлатежа!.length).toBeLessThanOrEqual(210);
    expect(settlementKeyValid(doc.ПолучательБИК!, doc.ПолучательСчет!)).toBe(true);
    expect(correspondentKeyValid(doc.ПолучательБИК!, doc.ПолучательКорсчет!)).toBe(true);
    expect(settlementKeyValid(doc.ПлательщикБИК!, doc.ПлательщикСчет!)).toBe(true);
    expect(innValid(doc.ПолучательИНН!) && innValid(doc.ПлательщикИНН!)).toBe(true);

    const report = await importStatement(statementOf([debitOf(sent)]));
    expect(report).toMatchObject({ duplicate: false, paid: [{ payoutId: created.id, amountKopecks: 250_050 }], returned: [], failed: [] });
    expect(await payout(created.id)).toMatchObject({ status: "PAID", paidAt: expect.any(String) });
    const statuses = await eventually(() => {
      const got = webhooksOf(created.id).map((b) => b.status);
      return got.length >= 3 ? got : undefined;
    }, 30_000);
    expect(statuses.sort()).toEqual(["PAYOUT_PAID", "PAYOUT_PENDING", "PAYOUT_SENT"]);
    const paid = webhooksOf(created.id).find((b) => b.status === "PAYOUT_PAID")!;
    expect(paid).toMatchObject({ id: created.id, amountKopecks: 250_050, test: false, payout: { status: "PAID", order: { reference: sent.order!.reference } } });

    // The same statement again changes nothing and says so.
    const again = await importStatement(statementOf([debitOf(sent)]));
    expect(again).toMatchObject({ duplicate: true, sha256: report.sha256, importedAt: report.importedAt });
  });

  test("a returned payout comes back on the balance exactly once, whatever is imported again", async () => {
    const before = await available();
    const created = Payout.parse(await (await api("/v1/payouts", { method: "POST", json: { amountKopecks: 70_000 } })).json());
    await exportFile();
    const sent = await payout(created.id);
    const back: StatementDocument = {
      number: "5501",
      date: "02.12.2026",
      amount: "700.00",
      payerAccount: PAYEE_ACCOUNT,
      payerBik: "044525225",
      payeeAccount: PAYER_ENV.PAYOUT_PAYER_ACCOUNT,
      purpose: `Возврат средств: счёт закрыт. Назначение: ${sent.order!.purpose}`,
      credited: "02.12.2026",
    };
    const report = await importStatement(statementFile({ account: PAYER_ENV.PAYOUT_PAYER_ACCOUNT, from: "01.12.2026", to: "02.12.2026", openingKopecks: 50_000_000, documents: [debitOf(sent), back] }));
    expect(report.paid.map((l) => l.payoutId)).toEqual([created.id]);
    expect(report.returned.map((l) => l.payoutId)).toEqual([created.id]);
    expect(await payout(created.id)).toMatchObject({ status: "RETURNED", failureReason: back.purpose });
    expect(await available()).toBe(before);
    // A statement of the next days repeating the return, and the operator recording it by hand: nothing more comes back.
    const later = await importStatement(statementFile({ account: PAYER_ENV.PAYOUT_PAYER_ACCOUNT, from: "02.12.2026", to: "03.12.2026", openingKopecks: 0, documents: [back] }));
    expect(later.alreadyApplied).toEqual([expect.objectContaining({ payoutId: created.id, status: "RETURNED" })]);
    expect((await admin("payout:outcome", "--payout", created.id, "--status", "RETURNED", "--json")).status).toBe("RETURNED");
    expect(await available()).toBe(before);
    await eventually(() => webhooksOf(created.id).some((b) => b.status === "PAYOUT_RETURNED"), 30_000);
    expect(webhooksOf(created.id).filter((b) => b.status === "PAYOUT_RETURNED")).toHaveLength(1);
  });

  test("a new payout account holds payouts: the file leaves them out until the hold ends, then pays the new account", async () => {
    await enterPayoutDetails(stack, shop.accountId, NEW_ACCOUNT);
    const created = Payout.parse(await (await api("/v1/payouts", { method: "POST", json: { amountKopecks: 10_000 } })).json());
    const { made, bytes } = await exportFile();
    expect(bytes).toBeNull();
    expect(made.waiting).toEqual([{ payoutId: created.id, accountId: shop.accountId, amountKopecks: 10_000, reason: "held", until: expect.any(String) }]);
    expect((await payout(created.id)).status).toBe("PENDING");
    const until = Date.parse(made.waiting[0].until);
    await eventually(async () => (await stack.call(rpcs.directory.getAccountDetails, { accountId: shop.accountId })).payoutsHeldUntil === null, 20_000);
    expect(Date.now()).toBeGreaterThanOrEqual(until);
    const { bytes: later } = await exportFile();
    expect(readExchangeFile(later!).documents.map((d) => [d.ПолучательСчет, d.Сумма])).toEqual([[NEW_ACCOUNT, "100.00"]]);
    expect((await payout(created.id)).order?.account).toBe(NEW_ACCOUNT);
  });
});
