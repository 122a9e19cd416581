import type { ApiKeyRecord, ShopDetail, ShopRecord } from "@payaccept/contracts";
import type { ApiKeyRow, ShopRow } from "./store/schema.ts";

export function toShopRecord(row: ShopRow): ShopRecord {
  return {
    shopId: row.id,
    accountId: row.accountId,
    name: row.name,
    active: row.active,
    sandbox: row.sandbox,
    methods: row.methods,
    tariff: row.tariff,
    webhookUrl: row.webhookUrl,
    signingSecret: row.signingSecret,
    successUrl: row.successUrl,
    failUrl: row.failUrl,
    ...(row.receipts ? { receipts: row.receipts } : {}),
    ...(row.savedMethodConsent ? { savedMethodConsent: row.savedMethodConsent } : {}),
    updatedAt: new Date(row.updatedAt).toISOString(),
  };
}

/** What the owner sees: everything but the signing secret, which has its own screen. */
export function toShopView(row: ShopRow): Omit<ShopRecord, "signingSecret"> {
  const { signingSecret: _hidden, ...view } = toShopRecord(row);
  return view;
}

export const toApiKeyRecord = (row: ApiKeyRow): ApiKeyRecord => ({ shopId: row.shopId, keyId: row.id });

/** The dashboard's view of a shop; the signing secret only for the Webhook tab. */
export function toShopDetail(row: ShopRow, withSecret: boolean): ShopDetail {
  const { shopId, signingSecret, updatedAt: _iso, ...fields } = toShopRecord(row);
  return { ...fields, id: shopId, createdAt: row.createdAt, updatedAt: row.updatedAt, ...(withSecret ? { signingSecret } : {}) };
}
