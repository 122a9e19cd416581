import { DomainError, invalidRequest, rpcs, SaveMethodConsent, ShopReceiptSettings, type ShopWithKey } from "@payaccept/contracts";
import { Hono, type Context } from "hono";
import type { WebDeps } from "../deps.ts";
import type { WebEnv } from "../env.ts";
import { formOf, text } from "../forms.ts";
import { accountOf } from "../middleware.ts";
import { ownedShop } from "../ownership.ts";
import { ShopCardPage, type SettingsForm } from "../views/shop-card.tsx";
import { ShopsPage } from "../views/shops-list.tsx";
import { KEY_OVERLAPS, overlapMsOf } from "../overlap.ts";
import { done, flashFor, refusalsOf } from "./action.ts";

/** The account's shops: list, creation, the card with its key and settings. */
export function shopRoutes(deps: WebDeps): Hono<WebEnv> {
  const r = new Hono<WebEnv>();
  const shopOf = (c: Context<WebEnv>) => ownedShop(deps.backend, accountOf(c), c.req.param("shopId")!);
  const shopsOf = async (accountId: string) => (await deps.backend.call(rpcs.directory.listShops, { accountId })).items;

  r.get("/shops", async (c) => c.html(<ShopsPage page={c.get("page")} shops={await shopsOf(accountOf(c))} />));

  r.post("/shops", async (c) => {
    const accountId = accountOf(c);
    const form = await formOf(c);
    const name = text(form, "name");
    const sandbox = text(form, "kind") !== "live";
    let created: { shopId: string; apiKey: string } | undefined;
    const errors = await refusalsOf(c, async () => {
      created = await deps.backend.call(rpcs.directory.createShop, { name, sandbox, accountId });
    });
    if (!created) return c.html(<ShopsPage page={c.get("page")} shops={await shopsOf(accountId)} form={{ name, sandbox, errors }} />, 400);
    // createShop issues the shop's first key; it is shown once, on the card, like every later one.
    return done(c, deps, `/shops/${created.shopId}#api-key`, { kind: "apiKey", shopId: created.shopId, apiKey: created.apiKey });
  });

  const card = async (c: Context<WebEnv>, { shop, key, retiringKeys }: ShopWithKey, settings?: SettingsForm) => {
    const flash = settings ? undefined : await flashFor(c, deps, ["apiKey", "notice"], shop.id);
    return (
      <ShopCardPage
        page={c.get("page")}
        shop={shop}
        keyHint={key}
        // A directory of an earlier release (during a rolling upgrade) sends no list.
        retiringKeys={retiringKeys ?? []}
        newKey={flash?.kind === "apiKey" ? flash.apiKey : undefined}
        notice={flash?.kind === "notice" ? c.get("page").t[flash.text] : undefined}
        settings={settings}
      />
    );
  };

  r.get("/shops/:shopId", async (c) => c.html(await card(c, await shopOf(c))));

  r.post("/shops/:shopId/settings", async (c) => {
    const found = await shopOf(c);
    const shop = found.shop;
    const form = await formOf(c);
    const settings = { name: text(form, "name"), successUrl: text(form, "successUrl"), failUrl: text(form, "failUrl"), savedMethodConsent: text(form, "savedMethodConsent") };
    // A consent the form never offers (a tampered form) leaves the setting as it was.
    const savedMethodConsent = SaveMethodConsent.safeParse(settings.savedMethodConsent).data;
    const errors = await refusalsOf(c, () => deps.backend.call(rpcs.directory.updateShop, { shopId: shop.id, ...settings, savedMethodConsent }));
    if (errors.length > 0) return c.html(await card(c, found, { ...settings, errors }), 400);
    return done(c, deps, `/shops/${shop.id}`, { kind: "notice", text: "saved" });
  });

  // The form offers only valid choices, so a refusal here is a tampered post: an error page, not a form.
  r.post("/shops/:shopId/receipts", async (c) => {
    const { shop } = await shopOf(c);
    const form = await formOf(c);
    const parsed = ShopReceiptSettings.safeParse({
      required: text(form, "required") === "on",
      taxation: text(form, "taxation") || null,
      vat: text(form, "vat") || null,
    });
    if (!parsed.success) throw invalidRequest(parsed.error);
    await deps.backend.call(rpcs.directory.updateShop, { shopId: shop.id, receipts: parsed.data });
    return done(c, deps, `/shops/${shop.id}#receipts`, { kind: "notice", text: "saved" });
  });

  r.post("/shops/:shopId/key", async (c) => {
    const { shop } = await shopOf(c);
    const overlapMs = overlapMsOf(KEY_OVERLAPS, text(await formOf(c), "overlap") || "0");
    const { apiKey } = await deps.backend.call(rpcs.directory.rotateKey, { shopId: shop.id, overlapMs });
    return done(c, deps, `/shops/${shop.id}#api-key`, { kind: "apiKey", shopId: shop.id, apiKey });
  });

  // A rolled key whose overlap the merchant ends early: the new key is deployed everywhere.
  r.post("/shops/:shopId/keys/:keyId/end", async (c) => {
    const { shop } = await shopOf(c);
    await deps.backend.call(rpcs.directory.endKeyOverlap, { shopId: shop.id, keyId: c.req.param("keyId") });
    return done(c, deps, `/shops/${shop.id}#api-key`, { kind: "notice", text: "keyOverlapEnded" });
  });

  return r;
}
