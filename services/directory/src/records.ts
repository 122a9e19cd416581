import type { ApiKeyRecord, RetiringKey, ShopDetail, ShopRecord, ShopView } from "@payaccept/contracts";
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
    ...(row.connectors ? { connectors: row.connectors } : {}),
    ...(row.retiringSecret !== null && row.retiringSecretExpiresAt !== null
      ? { retiringSecret: { signingSecret: row.retiringSecret, expiresAt: new Date(row.retiringSecretExpiresAt).toISOString() } }
      : {}),
    updatedAt: new Date(row.updatedAt).toISOString(),
  };
}

/** What the owner sees: everything but the signing secrets, which have their own screen. */
export function toShopView(row: ShopRow): ShopView {
  const { signingSecret: _hidden, retiringSecret: _retiring, ...view } = toShopRecord(row);
  return view;
}

export const toApiKeyRecord = (row: ApiKeyRow): ApiKeyRecord => ({
  shopId: row.shopId,
  keyId: row.id,
  displayPrefix: row.displayPrefix,
  ...(row.expiresAt === null ? {} : { expiresAt: new Date(row.expiresAt).toISOString() }),
});

/** The dashboard's view of a shop; the signing secret only for the Webhook tab, a retiring one never. */
export function toShopDetail(row: ShopRow, withSecret: boolean): ShopDetail {
  const { shopId, signingSecret, retiringSecret, updatedAt: _iso, ...fields } = toShopRecord(row);
  return {
    ...fields,
    id: shopId,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    ...(withSecret ? { signingSecret } : {}),
    ...(retiringSecret ? { retiringSecretExpiresAt: row.retiringSecretExpiresAt! } : {}),
  };
}

export const toRetiringKey = (row: ApiKeyRow): RetiringKey => ({ id: row.id, displayPrefix: row.displayPrefix, createdAt: row.createdAt, expiresAt: row.expiresAt! });
