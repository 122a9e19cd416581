import { rpcs, type ShopDetail } from "@payaccept/contracts";
import { Hono, type Context } from "hono";
import { loaded } from "../backend.ts";
import type { WebDeps } from "../deps.ts";
import type { WebEnv } from "../env.ts";
import { formOf, text } from "../forms.ts";
import { accountOf } from "../middleware.ts";
import { ownedShop } from "../ownership.ts";
import { logFilterQuery, logFilterRequest, readLogFilter } from "../delivery-filter.ts";
import { DELIVERIES_PER_PAGE, WebhookPage } from "../views/webhook-page.tsx";
import { overlapMsOf, SECRET_OVERLAPS } from "../overlap.ts";
import { done, flashFor, refusalsOf } from "./action.ts";

/** The Webhook tab and its actions; every one first checks the shop belongs to the account. */
export function webhookRoutes(deps: WebDeps): Hono<WebEnv> {
  const r = new Hono<WebEnv>();
  const shopOf = async (c: Context<WebEnv>, withSecret = false) => (await ownedShop(deps.backend, accountOf(c), c.req.param("shopId")!, withSecret)).shop;
  const tab = (shop: ShopDetail) => `/shops/${shop.id}/webhook`;

  const page = async (c: Context<WebEnv>, shop: ShopDetail, urlForm?: { value: string; errors: string[] }) => {
    const before = c.req.query("before") || undefined;
    const filter = readLogFilter((n) => c.req.query(n));
    const log = await loaded(
      deps.backend.call(rpcs.webhooks.log, { shopId: shop.id, limit: DELIVERIES_PER_PAGE, before, ...logFilterRequest(filter) }).then((l) => l.items),
    );
    const flash = urlForm ? undefined : await flashFor(c, deps, ["secret", "testWebhook", "notice"], shop.id);
    return <WebhookPage page={c.get("page")} shop={shop} log={log} filter={filter} before={before} urlForm={urlForm} flash={flash} />;
  };

  r.get("/shops/:shopId/webhook", async (c) => c.html(await page(c, await shopOf(c))));

  r.post("/shops/:shopId/webhook/url", async (c) => {
    const shop = await shopOf(c);
    const value = text(await formOf(c), "webhookUrl").trim();
    const errors = await refusalsOf(c, () => deps.backend.call(rpcs.directory.updateShop, { shopId: shop.id, webhookUrl: value }));
    if (errors.length > 0) return c.html(await page(c, shop, { value, errors }), 400);
    return done(c, deps, tab(shop), { kind: "notice", text: "saved" });
  });

  // Shown on demand, and only in answer to a POST carrying the CSRF token: a cross-site page can
  // neither trigger the reveal nor read the answer.
  r.post("/shops/:shopId/webhook/secret", async (c) => {
    const shop = await shopOf(c, true);
    return done(c, deps, `${tab(shop)}#secret-title`, { kind: "secret", shopId: shop.id, secret: shop.signingSecret!, rotated: false });
  });

  r.post("/shops/:shopId/webhook/secret/rotate", async (c) => {
    const shop = await shopOf(c);
    const overlapMs = overlapMsOf(SECRET_OVERLAPS, text(await formOf(c), "overlap") || "0");
    const { signingSecret } = await deps.backend.call(rpcs.directory.rotateSecret, { shopId: shop.id, overlapMs });
    return done(c, deps, `${tab(shop)}#secret-title`, { kind: "secret", shopId: shop.id, secret: signingSecret, rotated: true });
  });

  r.post("/shops/:shopId/webhook/secret/end-overlap", async (c) => {
    const shop = await shopOf(c);
    await deps.backend.call(rpcs.directory.endSecretOverlap, { shopId: shop.id });
    return done(c, deps, `${tab(shop)}#secret-title`, { kind: "notice", text: "secretOverlapEnded" });
  });

  r.post("/shops/:shopId/webhook/test", async (c) => {
    const shop = await shopOf(c);
    const sentAt = deps.now();
    const result = await deps.backend.slow(rpcs.webhooks.test, { shopId: shop.id });
    return done(c, deps, `${tab(shop)}#test-title`, { kind: "testWebhook", shopId: shop.id, result, sentAt });
  });

  r.post("/shops/:shopId/webhook/deliveries/:deliveryId/resend", async (c) => {
    const shop = await shopOf(c);
    const form = await formOf(c);
    // Scoped by shop: the dispatcher answers NOT_FOUND for another shop's delivery.
    const delivery = await deps.backend.call(rpcs.webhooks.resend, { shopId: shop.id, deliveryId: c.req.param("deliveryId") });
    // Back to the log as it was shown: its filter and page came along in the form (views/delivery-log.tsx).
    const filter = readLogFilter((n) => text(form, n) || undefined);
    const location =
      text(form, "back") === "payment" ? `/shops/${shop.id}/payments/${delivery.paymentId}` : `${tab(shop)}${logFilterQuery(filter, { before: text(form, "before") })}#log-title`;
    return done(c, deps, location, { kind: "notice", text: "resent" });
  });

  return r;
}
