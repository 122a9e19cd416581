import { DomainError, rpcs } from "@payaccept/contracts";
import { Hono } from "hono";
import { loaded } from "../backend.ts";
import type { WebDeps } from "../deps.ts";
import type { WebEnv } from "../env.ts";
import { accountOf } from "../middleware.ts";
import { healthFigures, overviewFigures } from "../overview/figures.ts";
import { lastDays, periodProblems, PRESETS, readOverviewQuery } from "../overview/period.ts";
import { overviewScope } from "../overview/scope.ts";
import { OverviewPage, type OverviewData } from "../views/overview-page.tsx";

/** The merchant's landing page: the period's payments and webhook health, one shop or all of them. */
export function overviewRoutes(deps: WebDeps): Hono<WebEnv> {
  const r = new Hono<WebEnv>();

  r.get("/overview", async (c) => {
    const shops = (await deps.backend.call(rpcs.directory.listShops, { accountId: accountOf(c) })).items.map((s) => s.shop);
    const now = deps.now();
    const query = readOverviewQuery((n) => c.req.query(n), now);
    // Another account's shop (or a made-up id) is as absent as on every other page.
    if (query.shopId && !shops.some((s) => s.id === query.shopId)) throw new DomainError("SHOP_NOT_FOUND");
    const scope = overviewScope(shops, query.shopId);
    const { shopIds } = scope;
    const problems = periodProblems(query);
    let data: OverviewData = { kind: "invalid", problems };
    if (problems.length === 0 && shopIds.length > 0) {
      const [payments, health] = await Promise.all([
        loaded(deps.backend.call(rpcs.payments.stats, { shopIds, fromDay: query.from, toDay: query.to }).then((s) => overviewFigures(s, query.from, query.to))),
        loaded(
          deps.backend
            .call(rpcs.webhooks.health, { shopIds, fromDay: query.from, toDay: query.to })
            .then((h) => healthFigures(h.shops)),
        ),
      ]);
      data = { kind: "figures", payments, health };
    }
    const presets = PRESETS.map((days) => ({ days, ...lastDays(days, now) }));
    return c.html(<OverviewPage page={c.get("page")} shops={shops} scope={scope} query={query} presets={presets} data={data} />);
  });

  return r;
}
