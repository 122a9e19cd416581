import iconv from "iconv-lite";

/**
 * The test's own reader and writer of the 1C exchange format (1CClientBankExchange 1.03, as
 * v8.1c.ru/edi/edi_stnd/100/101.htm describes it), written from the format's description and
 * sharing no code with the product's (services/balance/src/rails/exchange-file): what the
 * product writes is read back by a different reader, and the statements it imports are written by
 * a different writer, as a bank's would be.
 */

export type Document = Record<string, string>;
export type ReadFile = { header: [string, string][]; documents: Document[] };

/** Reads bytes as a bank's import would: Windows-1251, every line ended by CRLF, sections closed, КонецФайла last. */
export function readExchangeFile(bytes: Uint8Array): ReadFile {
  const text = new TextDecoder("windows-1251", { fatal: true }).decode(bytes);
  if (!text.endsWith("\r\n")) throw new Error("the last line has no CRLF");
  const lines = text.slice(0, -2).split("\r\n");
  for (const [i, line] of lines.entries()) if (line.includes("\n") || line.includes("\r")) throw new Error(`line ${i + 1}: a bare LF or CR`);
  if (lines[0] !== "1CClientBankExchange") throw new Error(`first line ${lines[0]}`);
  if (lines.at(-1) !== "КонецФайла") throw new Error(`last line ${lines.at(-1)}`);
  const header: [string, string][] = [];
  const documents: Document[] = [];
  let open: Document | undefined;
  for (const line of lines.slice(1, -1)) {
    if (line === "КонецДокумента") {
      if (!open) throw new Error("КонецДокумента outside a document");
      documents.push(open);
      open = undefined;
      continue;
    }
    const at = line.indexOf("=");
    if (at < 1) throw new Error(`not Key=Value: ${line}`);
    const [key, value] = [line.slice(0, at), line.slice(at + 1)];
    if (key === "СекцияДокумент") {
      if (open) throw new Error("a document inside a document");
      open = { СекцияДокумент: value };
    } else if (open) {
      if (key in open) throw new Error(`${key} twice in one document`);
      open[key] = value;
    } else header.push([key, value]);
  }
  if (open) throw new Error("a document is not closed");
  return { header, documents };
}

/** The Bank of Russia's control key check (7, 1, 3 weights over the bank's 3 digits and the 20 of the account), computed here from its definition. */
export function controlKeyValid(bankDigits: string, account: string): boolean {
  const digits = `${bankDigits}${account}`;
  if (!/^\d{23}$/.test(digits)) return false;
  const weights = [7, 1, 3];
  let sum = 0;
  for (let i = 0; i < 23; i++) sum += (Number(digits[i]) * weights[i % 3]!) % 10;
  return sum % 10 === 0;
}
export const settlementKeyValid = (bik: string, account: string) => controlKeyValid(bik.slice(-3), account);
export const correspondentKeyValid = (bik: string, account: string) => controlKeyValid(`0${bik.slice(4, 6)}`, account);

/** The INN's check digits, from the tax service's definition. */
export function innValid(inn: string): boolean {
  const d = [...inn].map(Number);
  const check = (weights: number[], at: number) => (weights.reduce((s, w, i) => s + w * d[i]!, 0) % 11) % 10 === d[at];
  if (d.length === 10) return check([2, 4, 10, 3, 5, 9, 4, 6, 8], 9);
  if (d.length === 12) return check([7, 2, 4, 10, 3, 5, 9, 4, 6, 8], 10) && check([3, 7, 2, 4, 10, 3, 5, 9, 4, 6, 8], 11);
  return false;
}

/** A statement line as a bank writes it. */
export type StatementDocument = {
  number: string;
  date: string;
  amount: string;
  payerAccount: string;
  payerBik?: string;
  payeeAccount: string;
  payeeBik?: string;
  purpose: string;
  /** An outgoing document executed that day. */
  debited?: string;
  /** An incoming one. */
  credited?: string;
  /** The bank's receipt of its processing. */
  receipt?: string;
};

/** The statement line of a payout's order debited from the payer's account on `debited` (DD.MM.YYYY), as the bank prints it. */
export function debitLineOf(
  p: { amountKopecks: number; order: { number: number; date: string; account: string; bik: string; purpose: string } | null },
  payer: { account: string; bik: string },
  debited: string,
): StatementDocument {
  const order = p.order!;
  return {
    number: String(order.number),
    date: order.date.split("-").reverse().join("."),
    amount: (p.amountKopecks / 100).toFixed(2),
    payerAccount: payer.account,
    payerBik: payer.bik,
    payeeAccount: order.account,
    payeeBik: order.bik,
    purpose: order.purpose,
    debited,
  };
}

/**
 * A statement of `account` as a bank's internet bank exports it: the header, one balance section
 * whose totals are the documents' sums (unless `totals` says otherwise, as an edited file would),
 * then the documents, in Windows-1251 with CRLF.
 */
export function statementFile(opts: { account: string; from: string; to: string; openingKopecks: number; documents: StatementDocument[]; totals?: { in?: number; out?: number } }): Uint8Array {
  const kopecks = (s: string) => Math.round(Number(s) * 100);
  const out = opts.totals?.out ?? opts.documents.filter((d) => d.payerAccount === opts.account && d.debited).reduce((s, d) => s + kopecks(d.amount), 0);
  const cameIn = opts.totals?.in ?? opts.documents.filter((d) => d.payeeAccount === opts.account && d.credited).reduce((s, d) => s + kopecks(d.amount), 0);
  const rub = (k: number) => (k / 100).toFixed(2);
  const lines = [
    "1CClientBankExchange",
    "ВерсияФормата=1.03",
    "Кодировка=Windows",
    "Отправитель=Интернет-банк",
    "Получатель=Бухгалтерия",
    `ДатаСоздания=${opts.to}`,
    "ВремяСоздания=09:00:00",
    `ДатаНачала=${opts.from}`,
    `ДатаКонца=${opts.to}`,
    `РасчСчет=${opts.account}`,
    "СекцияРасчСчет",
    `ДатаНачала=${opts.from}`,
    `ДатаКонца=${opts.to}`,
    `РасчСчет=${opts.account}`,
    `НачальныйОстаток=${rub(opts.openingKopecks)}`,
    `ВсегоПоступило=${rub(cameIn)}`,
    `ВсегоСписано=${rub(out)}`,
    `КонечныйОстаток=${rub(opts.openingKopecks + cameIn - out)}`,
    "КонецРасчСчет",
    ...opts.documents.flatMap((d) => [
      "СекцияДокумент=Платежное поручение",
      `Номер=${d.number}`,
      `Дата=${d.date}`,
      `Сумма=${d.amount}`,
      ...(d.receipt ? [`КвитанцияДата=${d.date}`, `КвитанцияСодержание=${d.receipt}`] : []),
      `ПлательщикСчет=${d.payerAccount}`,
      ...(d.debited ? [`ДатаСписано=${d.debited}`] : []),
      `ПлательщикБИК=${d.payerBik ?? ""}`,
      `ПолучательСчет=${d.payeeAccount}`,
      ...(d.credited ? [`ДатаПоступило=${d.credited}`] : []),
      `ПолучательБИК=${d.payeeBik ?? ""}`,
      "ВидОплаты=01",
      "Очередность=5",
      `НазначениеПлатежа=${d.purpose}`,
      "КонецДокумента",
    ]),
    "КонецФайла",
  ];
  return iconv.encode(lines.map((l) => `${l}\r\n`).join(""), "win1251");
}
