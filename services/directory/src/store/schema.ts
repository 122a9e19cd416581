import { bothEngines, table, type Row } from "@payaccept/platform/table";
import type { PaymentMethod, SaveMethodConsent, ShopReceiptSettings, Tariff } from "@payaccept/contracts";

/** Times are epoch milliseconds. */
export const accounts = table("accounts", (k) => ({
  id: k.text("id").primaryKey(),
  createdAt: k.bigint("created_at").notNull(),
}));

export const shops = table(
  "shops",
  (k) => ({
    id: k.text("id").primaryKey(),
    accountId: k.text("account_id").notNull().references(() => accounts, "id"),
    name: k.text("name").notNull(),
    active: k.boolean("active").notNull(),
    sandbox: k.boolean("sandbox").notNull(),
    methods: k.json("methods").$type<PaymentMethod[]>().notNull(),
    tariff: k.json("tariff").$type<Tariff>().notNull(),
    webhookUrl: k.text("webhook_url"),
    /**
     * The HMAC key of the shop's webhooks. Unlike an API key it cannot be stored as a hash: the
     * dispatcher signs with it and the merchant reads it again on the Webhook tab (spec §5.2).
     */
    signingSecret: k.text("signing_secret").notNull(),
    successUrl: k.text("success_url"),
    failUrl: k.text("fail_url"),
    /** Fiscal receipt settings (docs/receipts.md); null until the owner sets them. */
    receipts: k.json("receipts").$type<ShopReceiptSettings>(),
    /** How the payment page asks a buyer to save a method (docs/payments.md, "Saved methods"); null: BUYER_CHOICE. */
    savedMethodConsent: k.text("saved_method_consent").$type<SaveMethodConsent>(),
    createdAt: k.bigint("created_at").notNull(),
    updatedAt: k.bigint("updated_at").notNull(),
  }),
  (t, x) => [x.index("shops_account_idx").on(t.accountId)],
);
export type ShopRow = Row<typeof shops>;

export const apiKeys = table(
  "api_keys",
  (k) => ({
    id: k.text("id").primaryKey(),
    shopId: k.text("shop_id").notNull().references(() => shops, "id"),
    /** SHA-256 hex of the key; the key itself is shown once and never stored. */
    keyHash: k.text("key_hash").notNull().unique(),
    /** The first characters of the key (e.g. "pk_live_AbCd"), so an owner can tell keys apart. */
    displayPrefix: k.text("display_prefix").notNull(),
    createdAt: k.bigint("created_at").notNull(),
    revokedAt: k.bigint("revoked_at"),
  }),
  (t, x) => [x.index("api_keys_shop_idx").on(t.shopId)],
);
export type ApiKeyRow = Row<typeof apiKeys>;

/** The directory's tables; schema.sqlite.ts and schema.pg.ts hand each engine its own. */
export const tables = bothEngines({ accounts, shops, apiKeys });
