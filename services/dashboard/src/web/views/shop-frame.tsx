import type { ShopDetail } from "@payaccept/contracts";
import type { Child } from "hono/jsx";
import { allows, type Page } from "../page.ts";
import { Badge, MerchantText } from "./components.tsx";
import { Layout } from "./layout.tsx";

export type ShopTab = "shop" | "webhook" | "payments" | "methods";

export const ShopBadges = (props: { page: Page; shop: Pick<ShopDetail, "active" | "sandbox"> }) => (
  <>
    <Badge tone={props.shop.active ? "ok" : "bad"}>{props.shop.active ? props.page.t.active : props.page.t.inactive}</Badge>{" "}
    <Badge tone={props.shop.sandbox ? "test" : "neutral"}>{props.shop.sandbox ? props.page.t.sandbox : props.page.t.live}</Badge>
  </>
);

/** A shop's pages: its name and badges, then tabs for the card, the webhook and the payments. */
export function ShopFrame(props: { page: Page; shop: ShopDetail; tab: ShopTab; title: string; children: Child }) {
  const { t } = props.page;
  const base = `/shops/${props.shop.id}`;
  const tabs: [ShopTab, string, string][] = [
    ["shop", base, t.tabShop],
    ...(allows(props.page, "webhook.view") ? [["webhook", `${base}/webhook`, t.tabWebhook] as [ShopTab, string, string]] : []),
    ["payments", `${base}/payments`, t.tabPayments],
    ["methods", `${base}/methods`, t.tabMethods],
  ];
  return (
    <Layout page={props.page} title={`${props.title} · ${props.shop.name}`}>
      <p class="crumbs">
        <a href="/shops">{t.navShops}</a>
      </p>
      <h1 class="shop-title">
        <MerchantText text={props.shop.name} /> <ShopBadges page={props.page} shop={props.shop} />
      </h1>
      <nav class="tabs" aria-label={props.shop.name}>
        {tabs.map(([tab, href, label]) => (
          <a href={href} aria-current={tab === props.tab ? "page" : undefined}>
            {label}
          </a>
        ))}
      </nav>
      {props.children}
    </Layout>
  );
}
