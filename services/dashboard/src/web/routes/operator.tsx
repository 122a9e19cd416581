import { DomainError, PAYMENT_METHODS, type Tariff } from "@payaccept/contracts";
import { Hono, type Context } from "hono";
import { setActive, updateShop } from "../../directory/directory.ts";
import { parsePercentBp, parseRubles } from "../amount-input.ts";
import type { WebDeps } from "../deps.ts";
import type { WebEnv } from "../env.ts";
import { formOf, text, texts, type Form } from "../forms.ts";
import { operatorOnly } from "../middleware.ts";
import { OPERATOR_SHOPS_PER_PAGE, OperatorShopPage, OperatorShopsPage } from "../views/operator-pages.tsx";
import { done, noticeOf } from "./action.ts";

/** The commission form → a Tariff, or undefined when any figure is not a number it can be. */
function tariffOf(form: Form): Tariff | undefined {
  const entries = PAYMENT_METHODS.map((m) => {
    const [percentBp, fixedKopecks, minKopecks] = [parsePercentBp(text(form, `${m}.percent`)), parseRubles(text(form, `${m}.fixed`)), parseRubles(text(form, `${m}.min`))];
    return percentBp === undefined || fixedKopecks === undefined || minKopecks === undefined ? undefined : [m, { percentBp, fixedKopecks, minKopecks }];
  });
  return entries.every(Boolean) ? (Object.fromEntries(entries as [string, unknown][]) as Tariff) : undefined;
}

/** Platform operators: every shop, its activity, methods and commission. */
export function operatorRoutes(deps: WebDeps): Hono<WebEnv> {
  const r = new Hono<WebEnv>();
  const store = deps.directory.store;
  r.use("/ops/*", operatorOnly);

  const shopOf = (c: Context<WebEnv>) => {
    const shop = store.shop(c.req.param("shopId")!);
    if (!shop) throw new DomainError("SHOP_NOT_FOUND");
    return shop;
  };
  const shopPage = (c: Context<WebEnv>, errors?: string[]) => {
    const shop = shopOf(c);
    return <OperatorShopPage page={c.get("page")} shop={shop} ownerEmail={deps.users.users.merchantEmail(shop.accountId)} notice={errors ? undefined : noticeOf(c, deps)} errors={errors} />;
  };

  r.get("/ops/shops", (c) => {
    const pageNo = Math.max(1, Math.min(Number.parseInt(c.req.query("page") ?? "1", 10) || 1, 100_000));
    const { items, total } = store.shopsPage((pageNo - 1) * OPERATOR_SHOPS_PER_PAGE, OPERATOR_SHOPS_PER_PAGE);
    return c.html(<OperatorShopsPage page={c.get("page")} shops={items} total={total} pageNo={pageNo} />);
  });

  r.get("/ops/shops/:shopId", (c) => c.html(shopPage(c)));

  r.post("/ops/shops/:shopId/active", async (c) => {
    const shop = shopOf(c);
    await setActive(deps.directory, { shopId: shop.id, active: text(await formOf(c), "active") === "1" });
    return done(c, deps, `/ops/shops/${shop.id}`, { kind: "notice", text: "activityChanged" });
  });

  r.post("/ops/shops/:shopId/methods", async (c) => {
    const shop = shopOf(c);
    const chosen = texts(await formOf(c), "method");
    const methods = PAYMENT_METHODS.filter((m) => chosen.includes(m));
    if (methods.length === 0) return c.html(shopPage(c, [c.get("page").t.methodsRequired]), 400);
    await updateShop(deps.directory, { shopId: shop.id, methods });
    return done(c, deps, `/ops/shops/${shop.id}`, { kind: "notice", text: "methodsSaved" });
  });

  r.post("/ops/shops/:shopId/tariff", async (c) => {
    const shop = shopOf(c);
    const tariff = tariffOf(await formOf(c));
    if (!tariff) return c.html(shopPage(c, [c.get("page").t.tariffInvalid]), 400);
    await updateShop(deps.directory, { shopId: shop.id, tariff });
    return done(c, deps, `/ops/shops/${shop.id}`, { kind: "notice", text: "tariffSaved" });
  });

  return r;
}
