import { z } from "zod";
import { IsoDateTime, PaymentMethod, ReturnUrl, Text } from "./primitives.ts";
import { ShopConnectors } from "./connectors.ts";
import { SaveMethodConsent } from "./payment-methods.ts";
import { ShopReceiptSettings } from "./receipts.ts";
import { AccountDetails } from "./bank-details.ts";

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
  /** A live shop's acquirers per method, chosen by operators (docs/connectors.md); absent: the deployment's default. */
  connectors: ShopConnectors.optional(),
  /**
   * The secret a rotation replaced, while its overlap lasts: until expiresAt (on the directory's
   * clock) every webhook is signed with both (docs/webhooks.md, "Rotating the signing secret").
   */
  retiringSecret: z.object({ signingSecret: z.string(), expiresAt: IsoDateTime }).optional(),
  updatedAt: z.string(),
});
export type ShopRecord = z.infer<typeof ShopRecord>;
/** What an owner reads back after a change: the record without its secrets. */
export const ShopView = ShopRecord.omit({ signingSecret: true, retiringSecret: true });
export type ShopView = z.infer<typeof ShopView>;

/**
 * A shop as the dashboard shows it (rpcs.directory.getShop and the lists): the KV record's
 * fields with `id` for `shopId` and epoch-millisecond times; the signing secret only when asked
 * for (the Webhook tab), so no other page ever carries it.
 */
export const ShopDetail = ShopRecord.omit({ shopId: true, signingSecret: true, retiringSecret: true, updatedAt: true }).extend({
  id: z.string(),
  createdAt: z.number().int(),
  updatedAt: z.number().int(),
  signingSecret: z.string().optional(),
  /** While a rotated secret still signs webhooks: until when (epoch ms); never the secret itself. */
  retiringSecretExpiresAt: z.number().int().optional(),
});
export type ShopDetail = z.infer<typeof ShopDetail>;

/** What an owner may see of a shop's live key: never the key, only how to recognise it. */
export const KeyHint = z.object({ displayPrefix: z.string(), createdAt: z.number().int() });
export type KeyHint = z.infer<typeof KeyHint>;
/** A key a roll replaced that still works until expiresAt (epoch ms): its overlap. */
export const RetiringKey = KeyHint.extend({ id: z.string(), expiresAt: z.number().int() });
export type RetiringKey = z.infer<typeof RetiringKey>;
export const ShopWithKey = z.object({
  shop: ShopDetail,
  key: KeyHint.nullable(),
  /** Keys in their overlap, soonest to expire first (getShop only; the lists leave them out). */
  retiringKeys: z.array(RetiringKey).default([]),
});
export type ShopWithKey = z.infer<typeof ShopWithKey>;

/** The longest a rolled key keeps working (Stripe's roll: up to 7 days). */
export const MAX_KEY_OVERLAP_MS = 7 * 24 * 3600 * 1000;
/** The longest a rotated signing secret keeps signing (Stripe, Svix: 24 h). */
export const MAX_SECRET_OVERLAP_MS = 24 * 3600 * 1000;

export const ApiKeyRecord = z.object({
  shopId: z.string(),
  keyId: z.string(),
  /** What the owner sees of the key (pk_live_AbCd): names it in the audit log. Absent in records of an earlier release. */
  displayPrefix: z.string().optional(),
  /**
   * A rolled key's end (on the directory's clock): readers refuse it from this instant on from
   * their own copy, with no publication needed (DirectoryCache.activeKey).
   */
  expiresAt: IsoDateTime.optional(),
});
export type ApiKeyRecord = z.infer<typeof ApiKeyRecord>;

export const ShopName = Text.trim().min(1).max(100);
export const WebhookUrlInput = Text.max(2048).url();
export const ShopLinks = z.object({
  successUrl: ReturnUrl.nullable().optional(),
  failUrl: ReturnUrl.nullable().optional(),
});

/**
 * An account's legal and bank details as the directory keeps them (epoch-millisecond times):
 * `details` null until entered. A change of the payout account holds the account's payouts until
 * `payoutsHeldUntil` (PAYOUT_ACCOUNT_HOLD after it; null once that has passed or never set).
 */
export const AccountDetailsView = z.object({
  accountId: z.string(),
  details: AccountDetails.nullable(),
  payoutAccountChangedAt: z.number().int().nullable(),
  payoutsHeldUntil: z.number().int().nullable(),
  updatedAt: z.number().int().nullable(),
});
export type AccountDetailsView = z.infer<typeof AccountDetailsView>;
