import { z } from "zod";
import { PaymentMethod, ReturnUrl, Text } from "./primitives.ts";
import { ShopReceiptSettings } from "./receipts.ts";

/**
 * The shop directory is owned by the dashboard service and published to this NATS KV bucket,
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
  updatedAt: z.string(),
});
export type ShopRecord = z.infer<typeof ShopRecord>;

export const ApiKeyRecord = z.object({ shopId: z.string(), keyId: z.string() });
export type ApiKeyRecord = z.infer<typeof ApiKeyRecord>;

export const ShopName = Text.trim().min(1).max(100);
export const WebhookUrlInput = Text.max(2048).url();
export const ShopLinks = z.object({
  successUrl: ReturnUrl.nullable().optional(),
  failUrl: ReturnUrl.nullable().optional(),
});
