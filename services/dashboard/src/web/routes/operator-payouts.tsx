import { DomainError, rpcs } from "@payaccept/contracts";
import { describeReason } from "@payaccept/web-ui";
import { Hono, type Context } from "hono";
import { loaded } from "../backend.ts";
import type { WebDeps } from "../deps.ts";
import type { WebEnv } from "../env.ts";
import { formOf } from "../forms.ts";
import { OperatorPayoutsPage, type PayoutsNotice } from "../views/operator-payouts.tsx";
import { done, flashFor } from "./action.ts";

/** Payouts listed on the page at most, in each status. */
const LISTED = 200;

/** The path the statement is posted to: the one form bigger than a few fields (STATEMENT_MAX_BYTES, app.ts). */
export const STATEMENT_PATH = "/ops/payouts/statement";

/**
 * Operators' payouts (docs/balance.md, "An operator's day"): the exchange file for
 * the bank (made by a POST, then downloaded from the list of files), and the bank's statement
 * uploaded back, its report on the page.
 */
export function operatorPayoutRoutes(deps: WebDeps): Hono<WebEnv> {
  const r = new Hono<WebEnv>();

  const page = async (c: Context<WebEnv>, notice?: PayoutsNotice, status: 200 | 400 = 200) => {
    const [pending, sent, batches] = await Promise.all([
      loaded(deps.backend.call(rpcs.balance.payoutsInStatus, { status: "PENDING", limit: LISTED }).then((l) => l.items)),
      loaded(deps.backend.call(rpcs.balance.payoutsInStatus, { status: "SENT", limit: LISTED }).then((l) => l.items)),
      loaded(deps.backend.call(rpcs.balance.payoutBatches, { limit: 20 }).then((l) => l.items)),
    ]);
    return c.html(<OperatorPayoutsPage page={c.get("page")} pending={pending} sent={sent} batches={batches} notice={notice} />, status);
  };

  r.get("/ops/payouts", async (c) => {
    const made = await flashFor(c, deps, ["payoutFile"]);
    return page(c, made && { kind: "file", orders: made.orders, totalKopecks: made.totalKopecks, waiting: made.waiting, batchId: made.batchId });
  });

  r.post("/ops/payouts/export", async (c) => {
    const made = await deps.backend.slow(rpcs.balance.exportPayouts, {});
    return done(c, deps, "/ops/payouts", {
      kind: "payoutFile",
      batchId: made.batch?.id ?? null,
      orders: made.batch?.orders ?? 0,
      totalKopecks: made.batch?.totalKopecks ?? 0,
      waiting: made.waiting.length,
    });
  });

  r.get("/ops/payouts/batches/:batchId/file", async (c) => {
    const { batch, fileBase64 } = await deps.backend.call(rpcs.balance.payoutBatchFile, { batchId: c.req.param("batchId") });
    // The bank's import reads the file as the format says: Windows-1251, CRLF; named by its time for the operator's folder.
    return new Response(Buffer.from(fileBase64, "base64"), {
      headers: {
        "Content-Type": "text/plain; charset=windows-1251",
        "Content-Disposition": `attachment; filename="payouts-${batch.createdAt.replace(/[:.]/g, "-")}.txt"`,
      },
    });
  });

  r.post(STATEMENT_PATH, async (c) => {
    const file = (await formOf(c)).statement;
    const { lang } = c.get("page");
    if (!(file instanceof File) || file.size === 0) return page(c, { kind: "refused", lines: [c.get("page").t.opsStatementMissing] }, 400);
    try {
      const report = await deps.backend.slow(rpcs.balance.importStatement, { fileBase64: Buffer.from(await file.arrayBuffer()).toString("base64") });
      return page(c, { kind: "statement", report });
    } catch (e) {
      if (e instanceof DomainError && (e.code === "BAD_REQUEST" || e.code === "CONFLICT")) return page(c, { kind: "refused", lines: describeReason(lang, e.reason, e.params) }, 400);
      throw e;
    }
  });

  return r;
}
