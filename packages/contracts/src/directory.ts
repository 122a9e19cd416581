import { z } from "zod";
import { PaymentMethod, ReturnUrl, Text } from "./primitives.ts";
import { SaveMethodConsent } from "./payment-methods.ts";
import { ShopReceiptSettings } from "./receipts.ts";

/**
 * The shop directory is owned by the directory service and published to this NATS KV bucket,
 * which the gateway, payments, paypage and webhook-dispatcher watch and cache in memory.
 *   shops.<shopId>      → ShopRecord
 *   keys.<sha256 hex>   → ApiKeyRecord   (deleted when the key is revoked)
 */
export const DIRECTORY_BUCKET = "directory";
export const shopKvKey = (shopId: string) => `shops.${shopId}`;
export const apiKeyKvKey = (keyHashHex: string) => `keys.${keyHashHex}`;

/** Commission of one method: round_half_up(amount × percentBp / 10000) + fixedKopecks, at least minKopecks. */
export const MethodTariff = z.object({
  percentBp: z.number().int().min(0).max(10000),
  fixedKopecks: z.number().int().min(0),
  minKopecks: z.number().int().min(0),
});
export type MethodTariff = z.infer<typeof MethodTariff>;
export const Tariff = z.object({ SBP: MethodTariff, CARD: MethodTariff });
export type Tariff = z.infer<typeof Tariff>;
export const DEFAULT_TARIFF: Tariff = {
  SBP: { percentBp: 70, fixedKopecks: 0, minKopecks: 0 },
  CARD: { percentBp: 250, fixedKopecks: 0, minKopecks: 0 },
};

export const ShopRecord = z.object({
  shopId: z.string(),
  accountId: z.string(),
  name: z.string(),
  active: z.boolean(),
  sandbox: z.boolean(),
  methods: z.array(PaymentMethod),
  tariff: Tariff,
  webhookUrl: z.string().nullable(),
  /** Shared with the webhook-dispatcher through the internal bus only. */
  signingSecret: z.string(),
  successUrl: z.string().nullable(),
  failUrl: z.string().nullable(),
  /** Fiscal receipt settings (docs/receipts.md); absent in records published before receipts existed. */
  receipts: ShopReceiptSettings.optional(),
  /** How the payment page asks the buyer to save a method (docs/payments.md, "Saved methods"); absent: BUYER_CHOICE. */
  savedMethodConsent: SaveMethodConsent.optional(),
  updatedAt: z.string(),
});
export type ShopRecord = z.infer<typeof ShopRecord>;

/**
 * A shop as the dashboard shows it (rpcs.directory.getShop and the lists): the KV record's
 * fields with `id` for `shopId` and epoch-millisecond times; the signing secret only when asked
 * for (the Webhook tab), so no other page ever carries it.
 */
export const ShopDetail = ShopRecord.omit({ shopId: true, signingSecret: true, updatedAt: true }).extend({
  id: z.string(),
  createdAt: z.number().int(),
  updatedAt: z.number().int(),
  signingSecret: z.string().optional(),
});
export type ShopDetail = z.infer<typeof ShopDetail>;

/** What an owner may see of a shop's live key: never the key, only how to recognise it. */
export const KeyHint = z.object({ displayPrefix: z.string(), createdAt: z.number().int() });
export type KeyHint = z.infer<typeof KeyHint>;
export const ShopWithKey = z.object({ shop: ShopDetail, key: KeyHint.nullable() });
export type ShopWithKey = z.infer<typeof ShopWithKey>;

export const ApiKeyRecord = z.object({ shopId: z.string(), keyId: z.string() });
export type ApiKeyRecord = z.infer<typeof ApiKeyRecord>;

export const ShopName = Text.trim().min(1).max(100);
export const WebhookUrlInput = Text.max(2048).url();
export const ShopLinks = z.object({
  successUrl: ReturnUrl.nullable().optional(),
  failUrl: ReturnUrl.nullable().optional(),
});
