import { DomainError, rpcs, type AuditEvent } from "@payaccept/contracts";
import { Hono, type Context } from "hono";
import { AUDIT_PER_PAGE, auditRequest, readAuditForm, readCursor } from "../audit-filter.ts";
import { loaded } from "../backend.ts";
import { AUDIT_CSV_COLUMNS, auditCsvLine } from "../csv.ts";
import type { WebDeps } from "../deps.ts";
import type { WebEnv } from "../env.ts";
import { accountOf } from "../middleware.ts";
import { pagedCsvStream } from "../payments-csv-stream.ts";
import { AuditPage } from "../views/audit-page.tsx";

/** A page of the export: the directory's largest. */
const EXPORT_PAGE_SIZE = 500;

/** The account's audit log (docs/dashboard.md, "Audit log"): filters, older pages, CSV. */
export function auditRoutes(deps: WebDeps): Hono<WebEnv> {
  const r = new Hono<WebEnv>();
  const formOf = (c: Context<WebEnv>) => readAuditForm((n) => c.req.query(n));

  r.get("/audit", async (c) => {
    const accountId = accountOf(c);
    const form = formOf(c);
    const request = auditRequest(form, accountId);
    const before = readCursor(c.req.query("before"));
    const [shops, entries] = await Promise.all([
      deps.backend.call(rpcs.directory.listShops, { accountId }).then((s) => s.items.map(({ shop }) => shop)),
      request.ok ? loaded(deps.backend.call(rpcs.directory.auditLog, { ...request.filter, before, limit: AUDIT_PER_PAGE }).then((l) => l.items)) : undefined,
    ]);
    return c.html(<AuditPage page={c.get("page")} form={form} shops={shops} entries={entries} before={before} />, entries ? 200 : 400);
  });

  r.get("/audit.csv", async (c) => {
    const request = auditRequest(formOf(c), accountOf(c));
    if (!request.ok) throw new DomainError("PERIOD_INVALID");
    const stream = await pagedCsvStream({
      header: AUDIT_CSV_COLUMNS,
      line: auditCsvLine,
      readPage: async (before: AuditEvent | undefined) =>
        (await deps.backend.call(rpcs.directory.auditLog, { ...request.filter, before: before && { at: before.at, id: before.id }, limit: EXPORT_PAGE_SIZE })).items,
      cursorOf: (last) => last,
      pageSize: EXPORT_PAGE_SIZE,
      onError: (err) => c.get("log").warn({ reason: (err as Error).message }, "audit export aborted midway"),
    });
    return c.body(stream, 200, { "Content-Type": "text/csv; charset=utf-8", "Content-Disposition": 'attachment; filename="audit-log.csv"' });
  });

  return r;
}
