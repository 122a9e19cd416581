import { CustomerId, DomainError, rpcs, Uuid, type ShopDetail } from "@payaccept/contracts";
import { Hono, type Context } from "hono";
import { loaded } from "../backend.ts";
import type { WebDeps } from "../deps.ts";
import type { WebEnv } from "../env.ts";
import { accountOf } from "../middleware.ts";
import { ownedShop } from "../ownership.ts";
import { ConfirmRevoke, methodsBack, MethodsPage, METHODS_PER_PAGE } from "../views/methods-page.tsx";
import { done, flashFor, refusalsOf } from "./action.ts";

/**
 * A shop's saved payment methods (docs/dashboard.md, "Saved methods"): a customer's found by the
 * shop's customerId, and revoked with a confirmation, as the API's list and revoke do.
 */
export function methodRoutes(deps: WebDeps): Hono<WebEnv> {
  const r = new Hono<WebEnv>();
  const shopOf = async (c: Context<WebEnv>) => (await ownedShop(deps.backend, accountOf(c), c.req.param("shopId")!)).shop;
  /** Scoped by the shop: another shop's method is NOT_FOUND. */
  const methodOf = (shop: ShopDetail, id: string) => {
    if (!Uuid.safeParse(id).success) throw new DomainError("METHOD_NOT_FOUND");
    return deps.backend.call(rpcs.payments.getMethod, { shopId: shop.id, id: id.toLowerCase() });
  };

  r.get("/shops/:shopId/methods", async (c) => {
    const shop = await shopOf(c);
    // A customerId the API could never have stored finds nothing; it is not an error to type one.
    const typed = (c.req.query("customerId") ?? "").trim();
    const customerId = CustomerId.safeParse(typed).success ? typed : undefined;
    const after = c.req.query("after");
    const startingAfter = after && Uuid.safeParse(after).success ? after : undefined;
    const list = typed && !customerId ? Promise.resolve({ items: [], hasMore: false }) : deps.backend.call(rpcs.payments.listMethods, { shopId: shop.id, query: { customerId, limit: METHODS_PER_PAGE, startingAfter } });
    const notice = await flashFor(c, deps, ["notice"]);
    return c.html(<MethodsPage page={c.get("page")} shop={shop} customerId={typed} list={await loaded(list)} notice={notice && c.get("page").t[notice.text]} />);
  });

  r.get("/shops/:shopId/methods/:methodId/revoke", async (c) => {
    const shop = await shopOf(c);
    return c.html(<ConfirmRevoke page={c.get("page")} shop={shop} method={await methodOf(shop, c.req.param("methodId"))} />);
  });

  r.post("/shops/:shopId/methods/:methodId/revoke", async (c) => {
    const shop = await shopOf(c);
    const method = await methodOf(shop, c.req.param("methodId"));
    const errors = await refusalsOf(c, () => deps.backend.slow(rpcs.payments.revokeMethod, { shopId: shop.id, id: method.id }));
    if (errors.length > 0) return c.html(<ConfirmRevoke page={c.get("page")} shop={shop} method={method} errors={errors} />, 409);
    return done(c, deps, methodsBack(shop.id, method), { kind: "notice", text: "revokedNotice" });
  });

  return r;
}
