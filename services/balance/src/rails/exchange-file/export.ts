import type { PayoutBatch } from "@payaccept/contracts";
import { moscowWallClock } from "@payaccept/domain";
import { issueOrder, readyToSend, russianDate, type DetailsOf, type OrderSettings, type PaymentOrderDoc, type Waiting } from "../../payment-orders.ts";
import type { LedgerStore } from "../../store/ledger-store.ts";
import { EXCHANGE_HEADER, encodeExchangeFile, PAYMENT_ORDER, sumOf } from "./format.ts";

export const EXCHANGE_FILE_RAIL = "exchange-file";

/** «ИНН 7707083893 ПАО Сбербанк»: how the format's Плательщик and Получатель name a party. */
const named = (inn: string, name: string) => `ИНН ${inn} ${name}`;

/**
 * One payment order as its СекцияДокумент: the format's keys in its order, the payer's and the
 * payee's names, INN, KPP, accounts and banks, the amount, «ВидОплаты=01» (a payment order),
 * priority 5 (every other payment, Art. 855 of the Civil Code) and the purpose with its VAT words.
 */
function documentLines(d: PaymentOrderDoc): string[] {
  const { payer, payee } = d;
  return [
    `СекцияДокумент=${PAYMENT_ORDER}`,
    `Номер=${d.number}`,
    `Дата=${russianDate(d.date)}`,
    `Сумма=${sumOf(d.amountKopecks)}`,
    `ПлательщикСчет=${payer.account}`,
    `Плательщик=${named(payer.inn, payer.name)}`,
    `ПлательщикИНН=${payer.inn}`,
    `ПлательщикКПП=${payer.kpp}`,
    `Плательщик1=${payer.name}`,
    `ПлательщикРасчСчет=${payer.account}`,
    `ПлательщикБанк1=${payer.bankName}`,
    `ПлательщикБИК=${payer.bik}`,
    `ПлательщикКорсчет=${payer.correspondentAccount}`,
    `ПолучательСчет=${payee.payout.account}`,
    `Получатель=${named(payee.inn, payee.payout.recipientName)}`,
    `ПолучательИНН=${payee.inn}`,
    `ПолучательКПП=${payee.kpp ?? ""}`,
    `Получатель1=${payee.payout.recipientName}`,
    `ПолучательРасчСчет=${payee.payout.account}`,
    `ПолучательБанк1=${payee.payout.bankName}`,
    `ПолучательБИК=${payee.payout.bik}`,
    `ПолучательКорсчет=${payee.payout.correspondentAccount}`,
    "ВидОплаты=01",
    // The payment's code (УИН): a commercial payment has none, written as 0.
    "Код=0",
    "Очередность=5",
    `НазначениеПлатежа=${d.purpose}`,
    "КонецДокумента",
  ];
}

/** The whole file: the header (the interval its orders' dates span, the account they are paid from), the orders, КонецФайла. */
export function exchangeFileLines(docs: PaymentOrderDoc[], createdAt: number): string[] {
  const wall = moscowWallClock(createdAt).toISOString();
  const dates = docs.map((d) => d.date).sort();
  const payer = docs[0]!.payer;
  return [
    EXCHANGE_HEADER,
    "ВерсияФормата=1.03",
    "Кодировка=Windows",
    "Отправитель=payaccept",
    "Получатель=",
    `ДатаСоздания=${russianDate(wall.slice(0, 10))}`,
    `ВремяСоздания=${wall.slice(11, 19)}`,
    `ДатаНачала=${russianDate(dates[0]!)}`,
    `ДатаКонца=${russianDate(dates.at(-1)!)}`,
    `РасчСчет=${payer.account}`,
    `Документ=${PAYMENT_ORDER}`,
    ...docs.flatMap(documentLines),
    "КонецФайла",
  ];
}

export type ExportResult = { batch: PayoutBatch | null; file: Uint8Array | null; waiting: Waiting[] };

/**
 * The operator's exchange file (docs/balance.md, "The exchange file"): the PENDING payouts that
 * may be sent now (details entered, no hold) become payment orders, SENT, in one transaction over
 * their accounts with the file itself, kept to be downloaded again byte for byte. What waits is
 * said, with why and until when. Nothing to send: no file.
 */
export async function exportPayouts(
  store: LedgerStore,
  deps: { detailsOf: DetailsOf; settings: OrderSettings; now: number; by: string; limit: number },
): Promise<ExportResult> {
  const { ready, waiting } = await readyToSend(store, deps.detailsOf, deps.limit);
  if (ready.length === 0) return { batch: null, file: null, waiting };
  const batchId = Bun.randomUUIDv7();
  const batch = await store.tx([...new Set(ready.map((r) => r.payout.accountId))], async (t) => {
    const docs: PaymentOrderDoc[] = [];
    for (const r of ready) {
      const issued = await issueOrder(t, r, EXCHANGE_FILE_RAIL, deps.settings, deps.now, batchId);
      if (issued) docs.push(issued.doc);
    }
    if (docs.length === 0) return null;
    const row = { id: batchId, createdAt: deps.now, orders: docs.length, totalKopecks: docs.reduce((s, d) => s + d.amountKopecks, 0), file: exchangeFileLines(docs, deps.now).join("\r\n"), createdBy: deps.by };
    await t.insertBatch(row);
    return row;
  });
  if (!batch) return { batch: null, file: null, waiting };
  return { batch: batchOf(batch), file: fileOf(batch.file), waiting };
}

/** A kept file's bytes: its lines written again in Windows-1251 with CRLF, the same bytes as the first time. */
export const fileOf = (text: string) => encodeExchangeFile(text.split("\r\n"));

export const batchOf = (b: { id: string; createdAt: number; orders: number; totalKopecks: number; createdBy: string }): PayoutBatch => ({
  id: b.id,
  createdAt: new Date(b.createdAt).toISOString(),
  orders: b.orders,
  totalKopecks: b.totalKopecks,
  createdBy: b.createdBy,
});
