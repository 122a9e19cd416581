import { describe, expect, test } from "bun:test";
import { DomainError, type Payout } from "@payaccept/contracts";
import { sha256Hex } from "@payaccept/platform";
import { correspondentKeyValid, debitLineOf, innValid, readExchangeFile, settlementKeyValid, statementFile, type StatementDocument } from "../../../../../tests/exchange-file-reader.ts";
import { readBalance } from "../../balance.ts";
import { toPayout } from "../../payout-states.ts";
import { createPayout, getPayout } from "../../payouts.ts";
import { detailsFor, ENGINES, fundAccount, ledgerPerTest, msk, PAYEE, PAYER, thrownBy } from "../../testing.ts";
import { exportPayouts, fileOf } from "./export.ts";
import { encodeExchangeFile } from "./format.ts";
import { importStatement } from "./statement.ts";

const HOLD_HOUR = 12;
const NOW = msk("2025-03-10T15:00:00");
const SETTINGS = { payer: PAYER, purposeTemplate: "Перечисление денежных средств, принятых в пользу клиента, выплата {reference} от {date}. Без налога (НДС)" };
const ENTREPRENEUR = {
  ...PAYEE,
  legalForm: "entrepreneur" as const,
  name: "Иванов Иван Иванович",
  inn: "500100732259",
  ogrn: "304500116000157",
  kpp: null,
  payout: { bik: "044525974", bankName: "АО «ТБанк»", correspondentAccount: "30101810145250000974", account: "40802810400000012345", recipientName: "ИП Иванов Иван Иванович" },
};

/** A refusal's reason and parameters. */
const refusal = (e: unknown) => [(e as DomainError).reason, (e as DomainError).params];

describe.each(ENGINES)("the exchange file and the bank statement (%s)", (engine) => {
  const ledger = ledgerPerTest(engine);
  const details = detailsFor({ company: { details: PAYEE }, person: { details: ENTREPRENEUR }, held: { details: PAYEE, heldUntil: NOW + 3_600_000 } }, NOW);
  const available = async (accountId: string) => (await readBalance(ledger.store, accountId, NOW, HOLD_HOUR)).availableKopecks;
  const pay = async (accountId: string, amountKopecks: number) => toPayout((await createPayout(ledger.store, { accountId, amountKopecks }, NOW, HOLD_HOUR)).payout);
  const exported = () => exportPayouts(ledger.store, { detailsOf: details, settings: SETTINGS, now: NOW, by: "ops@example.com", limit: 100 });
  const payout = (p: Payout) => getPayout(ledger.store, p.accountId, p.id);
  /** A statement line showing our order debited (as the bank prints it). */
  const debit = (p: Payout): StatementDocument => debitLineOf(p, PAYER, "11.03.2025");
  const statement = (documents: StatementDocument[], totals?: { in?: number; out?: number }) =>
    statementFile({ account: PAYER.account, from: "11.03.2025", to: "11.03.2025", openingKopecks: 100_000_00, documents, totals });
  const imported = (bytes: Uint8Array, now = NOW + 86_400_000) => importStatement(ledger.store, bytes, { payer: PAYER, now, by: "ops@example.com" });

  async function sentPayouts(): Promise<{ company: Payout; person: Payout; held: Payout; file: Uint8Array }> {
    for (const id of ["company", "person", "held"]) await fundAccount(ledger.store, id, 500_000, NOW);
    const [company, person, held] = [await pay("company", 150_050), await pay("person", 99_901), await pay("held", 10_000)];
    const made = await exported();
    expect(made.waiting).toEqual([{ payoutId: held.id, accountId: "held", amountKopecks: 10_000, reason: "held", until: NOW + 3_600_000 }]);
    return { company: await payout(company), person: await payout(person), held: await payout(held), file: made.file! };
  }

  test("the file holds one payment order per payout that may go, read back field by field with its control keys; the payouts are SENT", async () => {
    const { company, person, held, file } = await sentPayouts();
    expect([company.status, person.status, held.status]).toEqual(["SENT", "SENT", "PENDING"]);
    const read = readExchangeFile(file);
    expect(Object.fromEntries(read.header)).toEqual({
      ВерсияФормата: "1.03",
      Кодировка: "Windows",
      Отправитель: "payaccept",
      Получатель: "",
      ДатаСоздания: "10.03.2025",
      ВремяСоздания: "15:00:00",
      ДатаНачала: "10.03.2025",
      ДатаКонца: "10.03.2025",
      РасчСчет: PAYER.account,
      Документ: "Платежное поручение",
    });
    expect(read.documents).toHaveLength(2);
    const [first, second] = read.documents;
    expect(first).toEqual({
      СекцияДокумент: "Платежное поручение",
      Номер: String(company.order!.number),
      Дата: "10.03.2025",
      Сумма: "1500.50",
      ПлательщикСчет: "40702810500000012345",
      Плательщик: "ИНН 7736207543 ООО «Платёжный агрегатор»",
      ПлательщикИНН: "7736207543",
      ПлательщикКПП: "773601001",
      Плательщик1: "ООО «Платёжный агрегатор»",
      ПлательщикРасчСчет: "40702810500000012345",
      ПлательщикБанк1: "АО «ТБанк»",
      ПлательщикБИК: "044525974",
      ПлательщикКорсчет: "30101810145250000974",
      ПолучательСчет: "40702810938000000001",
      Получатель: "ИНН 7707083893 ООО «Ромашка»",
      ПолучательИНН: "7707083893",
      ПолучательКПП: "773601001",
      Получатель1: "ООО «Ромашка»",
      ПолучательРасчСчет: "40702810938000000001",
      ПолучательБанк1: "ПАО Сбербанк",
      ПолучательБИК: "044525225",
      ПолучательКорсчет: "30101810400000000225",
      ВидОплаты: "01",
      Код: "0",
      Очередность: "5",
      НазначениеПлатежа: `Перечисление денежных средств, принятых в пользу клиента, выплата ${company.order!.reference} от 10.03.2025. Без налога (НДС)`,
    });
    expect(second).toMatchObject({ Номер: String(person.order!.number), Сумма: "999.01", ПолучательИНН: "500100732259", ПолучательКПП: "", Получатель1: "ИП Иванов Иван Иванович", ПолучательБИК: "044525974" });
    for (const d of read.documents) {
      expect(settlementKeyValid(d.ПлательщикБИК!, d.ПлательщикСчет!)).toBe(true);
      expect(correspondentKeyValid(d.ПлательщикБИК!, d.ПлательщикКорсчет!)).toBe(true);
      expect(settlementKeyValid(d.ПолучательБИК!, d.ПолучательСчет!)).toBe(true);
      expect(correspondentKeyValid(d.ПолучательБИК!, d.ПолучательКорсчет!)).toBe(true);
      expect([innValid(d.ПлательщикИНН!), innValid(d.ПолучательИНН!)]).toEqual([true, true]);
    }
    // The file is kept: downloaded again, the same bytes.
    const [batch] = await ledger.store.latestBatches(1);
    expect(fileOf(batch!.file)).toEqual(file);
    expect(batch).toMatchObject({ orders: 2, totalKopecks: 150_050 + 99_901, createdBy: "ops@example.com" });
    // Nothing is sent twice: the next file has only what became PENDING since.
    expect((await exported()).batch).toBeNull();
  });

  test("the statement: debited → PAID, refused → FAILED, returned → RETURNED with the money back once; the same file again changes nothing", async () => {
    const { company, person, file } = await sentPayouts();
    expect(file.length).toBeGreaterThan(0);
    const other = { number: "77", date: "11.03.2025", amount: "12000.00", payerAccount: PAYER.account, payeeAccount: "40702810000000000001", purpose: "Аренда офиса за март. НДС не облагается", debited: "11.03.2025" };
    const refused = { ...debit(person), debited: undefined, receipt: "Отвергнут банком: счёт получателя закрыт" };
    const report = await imported(statement([debit(company), other, refused]));
    expect(report).toMatchObject({ duplicate: false, account: PAYER.account, periodFrom: "2025-03-11", periodTo: "2025-03-11", documents: 3, notOurs: 1 });
    expect(report.paid.map((l) => [l.payoutId, l.amountKopecks])).toEqual([[company.id, 150_050]]);
    expect(report.failed).toEqual([{ line: expect.any(Number), payoutId: person.id, reference: person.order!.reference, amountKopecks: 99_901, reason: "Отвергнут банком: счёт получателя закрыт" }]);
    expect((await payout(company)).status).toBe("PAID");
    expect(await payout(person)).toMatchObject({ status: "FAILED", failureReason: "Отвергнут банком: счёт получателя закрыт" });
    expect(await available("person")).toBe(500_000);
    expect(await available("company")).toBe(500_000 - 150_050);

    const back = {
      number: "3391",
      date: "12.03.2025",
      amount: "1500.50",
      payerAccount: "40702810938000000001",
      payerBik: "044525225",
      payeeAccount: PAYER.account,
      purpose: `Возврат: счёт получателя закрыт. ${company.order!.purpose}`,
      credited: "12.03.2025",
    };
    const returned = await imported(statement([back]), NOW + 2 * 86_400_000);
    expect(returned.returned.map((l) => l.payoutId)).toEqual([company.id]);
    expect(await payout(company)).toMatchObject({ status: "RETURNED", failureReason: back.purpose });
    expect(await available("company")).toBe(500_000);

    // The same file again: nothing changes, and it says when it was taken in.
    const again = await imported(statement([back]), NOW + 3 * 86_400_000);
    expect(again).toMatchObject({ duplicate: true, importedAt: new Date(NOW + 2 * 86_400_000).toISOString() });
    // Another file with the same lines (a wider period): each is already applied, the money back once.
    const wider = await imported(statementFile({ account: PAYER.account, from: "10.03.2025", to: "12.03.2025", openingKopecks: 100_000_00, documents: [debit(company), back] }), NOW + 3 * 86_400_000);
    expect(wider.alreadyApplied.map((l) => [l.payoutId, l.status])).toEqual([
      [company.id, "RETURNED"],
      [company.id, "RETURNED"],
    ]);
    expect(await available("company")).toBe(500_000);
  });

  test("a statement that was edited, or is another account's, or is not one, changes nothing and says why", async () => {
    const { company, person } = await sentPayouts();
    const before = [await payout(company), await payout(person)];
    const edited = { ...debit(company), amount: "15000.50" };
    // The amount changed and the totals made to fit: the line no longer is our order.
    expect(refusal(await thrownBy(() => imported(statement([debit(person), edited]))))).toEqual([
      "STATEMENT_AMOUNT_MISMATCH",
      { line: expect.any(Number), reference: company.order!.reference, expectedKopecks: 150_050, foundKopecks: 1_500_050 },
    ]);
    // The amount changed, the totals left as they were: the documents do not add up to them.
    const totals = await thrownBy(() => imported(statement([debit(person), edited], { out: 150_050 + 99_901 })));
    expect(refusal(totals)).toEqual(["STATEMENT_DOCUMENTS_MISMATCH", { total: "ВсегоСписано", documentsKopecks: 1_500_050 + 99_901, totalKopecks: 150_050 + 99_901 }]);
    // The closing balance changed: the balance section does not add up (the figures, never words, in the params).
    const text = new TextDecoder("windows-1251").decode(statement([debit(person)]));
    const closed = encodeExchangeFile(text.replace(/КонечныйОстаток=[\d.]+/, "КонечныйОстаток=1.00").split("\r\n"));
    expect(refusal(await thrownBy(() => imported(closed)))).toEqual([
      "STATEMENT_TOTALS_MISMATCH",
      { line: 11, openingKopecks: 100_000_00, inKopecks: 0, outKopecks: 99_901, closingKopecks: 100 },
    ]);
    // The payee's account changed.
    const redirected = await thrownBy(() => imported(statement([{ ...debit(company), payeeAccount: "40702810338000000002" }])));
    expect(refusal(redirected)).toEqual([
      "STATEMENT_PAYEE_MISMATCH",
      { line: expect.any(Number), reference: company.order!.reference, expected: "40702810938000000001 / 044525225", found: "40702810338000000002 / 044525225" },
    ]);
    const renumbered = await thrownBy(() => imported(statement([{ ...debit(company), number: "999" }])));
    expect((renumbered as DomainError).reason).toBe("STATEMENT_ORDER_MISMATCH");
    const otherAccount = await thrownBy(() => imported(statementFile({ account: "40702810938000000001", from: "11.03.2025", to: "11.03.2025", openingKopecks: 0, documents: [] })));
    expect(otherAccount).toEqual(new DomainError("STATEMENT_OTHER_ACCOUNT", { account: "40702810938000000001", payerAccount: PAYER.account }));
    const cut = statement([debit(company)]);
    expect(refusal(await thrownBy(() => imported(cut.subarray(0, cut.length - 40))))).toEqual(["STATEMENT_MALFORMED", { problem: "ENDS_INSIDE_SECTION" }]);
    expect(refusal(await thrownBy(() => imported(new TextEncoder().encode("Дата;Сумма\n01.01.2025;100\n"))))).toEqual(["STATEMENT_MALFORMED", { problem: "NOT_EXCHANGE_FILE" }]);
    const unkeyed = new TextEncoder().encode("1CClientBankExchange\r\nВерсияФормата=1.03\r\nnot a field\r\nКонецФайла\r\n");
    expect(refusal(await thrownBy(() => imported(unkeyed)))).toEqual(["STATEMENT_LINE_MALFORMED", { line: 3, problem: "NOT_KEY_VALUE" }]);
    // Nothing of them was taken in: the payouts are as they were, no event beyond their PENDING and SENT, no statement recorded.
    expect([await payout(company), await payout(person)]).toEqual(before);
    expect((await ledger.store.unpublishedPayoutEvents(100)).map((e) => e.status).sort()).toEqual(["PENDING", "PENDING", "PENDING", "SENT", "SENT"]);
    expect(await ledger.store.statement(sha256Hex(statement([debit(person), edited])))).toBeUndefined();
  });
});
