import { ConnectorId, PAYMENT_METHODS, rpcs, type ConnectorHealth, type ShopConnectors, type Tariff } from "@payaccept/contracts";
import { Hono, type Context } from "hono";
import { parsePercentBp, parseRubles } from "../amount-input.ts";
import type { WebDeps } from "../deps.ts";
import type { WebEnv } from "../env.ts";
import { formOf, text, texts, type Form } from "../forms.ts";
import { OPERATOR_SHOPS_PER_PAGE, OperatorConnectorsPage, OperatorShopPage, OperatorShopsPage } from "../views/operator-pages.tsx";
import { done, noticeOf } from "./action.ts";

/** The commission form → a Tariff, or undefined when any figure is not a number it can be. */
function tariffOf(form: Form): Tariff | undefined {
  const entries = PAYMENT_METHODS.map((m) => {
    const [percentBp, fixedKopecks, minKopecks] = [parsePercentBp(text(form, `${m}.percent`)), parseRubles(text(form, `${m}.fixed`)), parseRubles(text(form, `${m}.min`))];
    return percentBp === undefined || fixedKopecks === undefined || minKopecks === undefined ? undefined : [m, { percentBp, fixedKopecks, minKopecks }];
  });
  return entries.every(Boolean) ? (Object.fromEntries(entries as [string, unknown][]) as Tariff) : undefined;
}

/** The connectors form → a shop's lists (positions left empty skipped), or "twice" when one is listed twice for a method. */
function connectorsOf(form: Form): ShopConnectors | "twice" {
  const out: ShopConnectors = {};
  for (const m of PAYMENT_METHODS) {
    const ids = [1, 2, 3].map((i) => ConnectorId.safeParse(text(form, `${m}.${i}`))).flatMap((r) => (r.success ? [r.data] : []));
    if (new Set(ids).size !== ids.length) return "twice";
    if (ids.length > 0) out[m] = ids;
  }
  return out;
}

/** Platform operators: every shop, its activity, methods, acquirers and commission. */
export function operatorRoutes(deps: WebDeps): Hono<WebEnv> {
  const r = new Hono<WebEnv>();

  const shopOf = async (c: Context<WebEnv>) => (await deps.backend.call(rpcs.directory.getShop, { shopId: c.req.param("shopId")! })).shop;
  /** The connectors as payments sees them; the page still works (without their states) while payments does not answer. */
  const connectors = (): Promise<ConnectorHealth[] | null> =>
    deps.backend.call(rpcs.payments.connectors, {}).then(
      (r) => r.connectors,
      () => null,
    );
  const shopPage = async (c: Context<WebEnv>, errors?: string[]) => {
    const shop = await shopOf(c);
    const ownerEmail = (await deps.users.users.ownerEmails([shop.accountId])).get(shop.accountId);
    return <OperatorShopPage page={c.get("page")} shop={shop} ownerEmail={ownerEmail} connectors={await connectors()} notice={errors ? undefined : await noticeOf(c, deps)} errors={errors} />;
  };

  r.get("/ops/shops", async (c) => {
    const pageNo = Math.max(1, Math.min(Number.parseInt(c.req.query("page") ?? "1", 10) || 1, 100_000));
    const { items, total } = await deps.backend.call(rpcs.directory.browseShops, { offset: (pageNo - 1) * OPERATOR_SHOPS_PER_PAGE, limit: OPERATOR_SHOPS_PER_PAGE });
    // The owners' emails are the dashboard's own rows: one query for the page.
    const emails = await deps.users.users.ownerEmails([...new Set(items.map((s) => s.accountId))]);
    const shops = items.map((shop) => ({ shop, ownerEmail: emails.get(shop.accountId) ?? null }));
    return c.html(<OperatorShopsPage page={c.get("page")} shops={shops} total={total} pageNo={pageNo} />);
  });

  r.get("/ops/shops/:shopId", async (c) => c.html(await shopPage(c)));

  r.get("/ops/connectors", async (c) => c.html(<OperatorConnectorsPage page={c.get("page")} connectors={await connectors()} />));

  r.post("/ops/shops/:shopId/active", async (c) => {
    const shop = await shopOf(c);
    await deps.backend.call(rpcs.directory.setActive, { shopId: shop.id, active: text(await formOf(c), "active") === "1" });
    return done(c, deps, `/ops/shops/${shop.id}`, { kind: "notice", text: "activityChanged" });
  });

  r.post("/ops/shops/:shopId/methods", async (c) => {
    const shop = await shopOf(c);
    const chosen = texts(await formOf(c), "method");
    const methods = PAYMENT_METHODS.filter((m) => chosen.includes(m));
    if (methods.length === 0) return c.html(await shopPage(c, [c.get("page").t.methodsRequired]), 400);
    await deps.backend.call(rpcs.directory.updateShop, { shopId: shop.id, methods });
    return done(c, deps, `/ops/shops/${shop.id}`, { kind: "notice", text: "methodsSaved" });
  });

  r.post("/ops/shops/:shopId/connectors", async (c) => {
    const shop = await shopOf(c);
    const chosen = connectorsOf(await formOf(c));
    if (chosen === "twice") return c.html(await shopPage(c, [c.get("page").t.connectorsTwice]), 400);
    await deps.backend.call(rpcs.directory.updateShop, { shopId: shop.id, connectors: chosen.CARD || chosen.SBP ? chosen : null });
    return done(c, deps, `/ops/shops/${shop.id}`, { kind: "notice", text: "connectorsSaved" });
  });

  r.post("/ops/shops/:shopId/tariff", async (c) => {
    const shop = await shopOf(c);
    const tariff = tariffOf(await formOf(c));
    if (!tariff) return c.html(await shopPage(c, [c.get("page").t.tariffInvalid]), 400);
    await deps.backend.call(rpcs.directory.updateShop, { shopId: shop.id, tariff });
    return done(c, deps, `/ops/shops/${shop.id}`, { kind: "notice", text: "tariffSaved" });
  });

  return r;
}
