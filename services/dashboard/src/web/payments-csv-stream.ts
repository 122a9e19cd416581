import { csvLine, exportCsvLine, EXPORT_CSV_COLUMNS, type ExportRow } from "./csv.ts";

export type Keyset = { createdAt: string; id: string };
/** One keyset page of the export, oldest first, after the given payment. */
export type ExportPageReader = (after: Keyset | undefined) => Promise<ExportRow[]>;

/** Excel reads a CSV without it in the ANSI code page, which garbles Cyrillic. */
const BOM = "\uFEFF";

/**
 * The CSV of a period, produced page by page as the client reads it: a page is fetched only when
 * the previous one has been taken (pull), so memory holds one page whatever the period's size.
 * The first page is read before the stream is returned, so a service that is down gives an error
 * page instead of an empty file; a failure later aborts the download rather than truncating it
 * silently.
 */
export async function paymentsCsvStream(readPage: ExportPageReader, pageSize: number, onError: (err: unknown) => void): Promise<ReadableStream<Uint8Array>> {
  const encoder = new TextEncoder();
  let ready: ExportRow[] | undefined = await readPage(undefined);
  let after: Keyset | undefined;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(BOM + csvLine([...EXPORT_CSV_COLUMNS])));
    },
    async pull(controller) {
      let page: ExportRow[];
      try {
        page = ready ?? (await readPage(after));
      } catch (err) {
        onError(err);
        throw err;
      }
      ready = undefined;
      if (page.length > 0) controller.enqueue(encoder.encode(page.map(exportCsvLine).join("")));
      const last = page.at(-1)?.payment;
      if (!last || page.length < pageSize) controller.close();
      else after = { createdAt: last.createdAt, id: last.id };
    },
  }, { highWaterMark: 0 });
}
