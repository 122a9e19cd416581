import { csvLine, exportCsvLine, EXPORT_CSV_COLUMNS, type ExportRow } from "./csv.ts";

export type Keyset = { createdAt: string; id: string };
/** One keyset page of the export, oldest first, after the given payment. */
export type ExportPageReader = (after: Keyset | undefined) => Promise<ExportRow[]>;

/** Excel reads a CSV without it in the ANSI code page, which garbles Cyrillic. */
const BOM = "\uFEFF";

/** A CSV export read page by page: its header, how a row is written, and where the next page starts. */
export type PagedCsv<R, K> = {
  header: readonly string[];
  line: (row: R) => string;
  readPage: (after: K | undefined) => Promise<R[]>;
  cursorOf: (last: R) => K;
  pageSize: number;
  onError: (err: unknown) => void;
};

/**
 * A CSV produced page by page as the client reads it: a page is fetched only when the previous
 * one has been taken (pull), so memory holds one page whatever the export's size. The first page
 * is read before the stream is returned, so a service that is down gives an error page instead of
 * an empty file; a failure later aborts the download rather than truncating it silently.
 */
export async function pagedCsvStream<R, K>(csv: PagedCsv<R, K>): Promise<ReadableStream<Uint8Array>> {
  const encoder = new TextEncoder();
  let ready: R[] | undefined = await csv.readPage(undefined);
  let after: K | undefined;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(BOM + csvLine([...csv.header])));
    },
    async pull(controller) {
      let page: R[];
      try {
        page = ready ?? (await csv.readPage(after));
      } catch (err) {
        csv.onError(err);
        throw err;
      }
      ready = undefined;
      if (page.length > 0) controller.enqueue(encoder.encode(page.map(csv.line).join("")));
      const last = page.at(-1);
      if (last === undefined || page.length < csv.pageSize) controller.close();
      else after = csv.cursorOf(last);
    },
  }, { highWaterMark: 0 });
}

/** The payments of a period, oldest first (docs/dashboard.md, "CSV export"). */
export function paymentsCsvStream(readPage: ExportPageReader, pageSize: number, onError: (err: unknown) => void): Promise<ReadableStream<Uint8Array>> {
  return pagedCsvStream({
    header: EXPORT_CSV_COLUMNS,
    line: exportCsvLine,
    readPage,
    cursorOf: ({ payment }: ExportRow): Keyset => ({ createdAt: payment.createdAt, id: payment.id }),
    pageSize,
    onError,
  });
}
