import { DomainError, type StatementProblem } from "@payaccept/contracts";
import iconv from "iconv-lite";

/**
 * The 1C exchange format with «Клиент банка» systems (1CClientBankExchange, version 1.03,
 * v8.1c.ru/edi/edi_stnd/100/101.htm): text lines `Key=Value`, a header, balance sections
 * (СекцияРасчСчет … КонецРасчСчет) in a statement, document sections (СекцияДокумент=<kind> …
 * КонецДокумента), and КонецФайла. Every Russian bank's internet bank imports payment orders and
 * exports statements in it. Lines end in CRLF; the text is in Windows-1251 (Кодировка=Windows)
 * or, rarely, DOS code page 866 (Кодировка=DOS).
 */

export const EXCHANGE_HEADER = "1CClientBankExchange";
export const PAYMENT_ORDER = "Платежное поручение";

/** A section's `Key=Value` pairs in file order (a key may repeat: РасчСчет, Документ in the header). */
export type Fields = [key: string, value: string][];
export type Section = { line: number; fields: Fields };
export type ExchangeDocument = Section & { kind: string };
export type ExchangeFile = { header: Fields; accounts: Section[]; documents: ExchangeDocument[] };

export const fieldOf = (fields: Fields, key: string): string | undefined => fields.find(([k]) => k === key)?.[1];

/** The file's text with CRLF line ends, written in Windows-1251 (characters it lacks are refused when details are entered). */
export const encodeExchangeFile = (lines: string[]): Uint8Array => iconv.encode(lines.map((l) => `${l}\r\n`).join(""), "win1251");

/** Decodes by the header's Кодировка (Windows-1251 unless it says DOS), whatever line ends the bank used. */
export function decodeExchangeFile(bytes: Uint8Array): string {
  // Both code pages share ASCII, so the header's own line reads the same in either.
  const head = new TextDecoder("windows-1251").decode(bytes.subarray(0, 4096));
  const dos = /^Кодировка=DOS\s*$/m.test(head);
  return new TextDecoder(dos ? "ibm866" : "windows-1251").decode(bytes);
}

/** A file that is not a statement we read: as a whole, or at a line of it. */
export const malformed = (problem: StatementProblem, line?: number) =>
  line === undefined ? new DomainError("STATEMENT_MALFORMED", { problem }) : new DomainError("STATEMENT_LINE_MALFORMED", { line, problem });

/**
 * Reads an exchange file (a bank's statement). The structure is checked strictly — the header
 * first, every section closed, КонецФайла last — since a file cut short or pasted together must
 * not be half taken in; the values are left to the statement's own checks.
 */
export function parseExchangeFile(bytes: Uint8Array): ExchangeFile {
  const lines = decodeExchangeFile(bytes).split(/\r?\n/);
  if (lines[0]?.replace(/^\uFEFF/, "").trim() !== EXCHANGE_HEADER) throw malformed("NOT_EXCHANGE_FILE");
  const file: ExchangeFile = { header: [], accounts: [], documents: [] };
  let open: { end: string; section: Section } | undefined;
  let ended = false;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!.trimEnd();
    const n = i + 1;
    if (line === "") continue;
    if (ended) throw malformed("TEXT_AFTER_FILE_END", n);
    const eq = line.indexOf("=");
    const [key, value] = eq < 0 ? [line.trim(), ""] : [line.slice(0, eq).trim(), line.slice(eq + 1).trim()];
    if (open) {
      if (key === open.end) open = undefined;
      else if (key === "СекцияДокумент" || key === "СекцияРасчСчет" || key === "КонецФайла") throw malformed("SECTION_NOT_CLOSED", n);
      else if (eq < 0) throw malformed("NOT_KEY_VALUE", n);
      else open.section.fields.push([key, value]);
      continue;
    }
    if (key === "СекцияРасчСчет") {
      const section = { line: n, fields: [] };
      file.accounts.push(section);
      open = { end: "КонецРасчСчет", section };
    } else if (key === "СекцияДокумент") {
      const section = { line: n, kind: value, fields: [] };
      file.documents.push(section);
      open = { end: "КонецДокумента", section };
    } else if (key === "КонецФайла") ended = true;
    else if (eq < 0) throw malformed("NOT_KEY_VALUE", n);
    else file.header.push([key, value]);
  }
  if (open) throw malformed("ENDS_INSIDE_SECTION");
  if (!ended) throw malformed("NO_FILE_END");
  return file;
}

/** Kopecks from the format's sum ("1234.56", "1234.5", "1234"), or undefined when it is not one. */
export function kopecksOf(sum: string | undefined): number | undefined {
  const m = /^(-?)(\d+)(?:[.,](\d{1,2}))?$/.exec(sum?.trim() ?? "");
  if (!m) return undefined;
  const kopecks = Number(m[2]) * 100 + Number((m[3] ?? "0").padEnd(2, "0"));
  return m[1] ? -kopecks : kopecks;
}

/** Kopecks as the format writes a sum: rubles, a point, two digits. */
export const sumOf = (kopecks: number) => `${Math.trunc(kopecks / 100)}.${String(Math.abs(kopecks) % 100).padStart(2, "0")}`;

/** DD.MM.YYYY → YYYY-MM-DD, or undefined. */
export function dayOf(date: string | undefined): string | undefined {
  const m = /^(\d{2})\.(\d{2})\.(\d{4})$/.exec(date?.trim() ?? "");
  return m ? `${m[3]}-${m[2]}-${m[1]}` : undefined;
}
