import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import type { PaymentMethod, ShopReceiptSettings, Tariff } from "@payaccept/contracts";

/** Times are epoch milliseconds. */
export const accounts = sqliteTable("accounts", {
  id: text("id").primaryKey(),
  createdAt: integer("created_at").notNull(),
});

export const shops = sqliteTable(
  "shops",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    name: text("name").notNull(),
    active: integer("active", { mode: "boolean" }).notNull(),
    sandbox: integer("sandbox", { mode: "boolean" }).notNull(),
    methods: text("methods", { mode: "json" }).$type<PaymentMethod[]>().notNull(),
    tariff: text("tariff", { mode: "json" }).$type<Tariff>().notNull(),
    webhookUrl: text("webhook_url"),
    /**
     * The HMAC key of the shop's webhooks. Unlike an API key it cannot be stored as a hash: the
     * dispatcher signs with it and the merchant reads it again on the Webhook tab (spec §5.2).
     */
    signingSecret: text("signing_secret").notNull(),
    successUrl: text("success_url"),
    failUrl: text("fail_url"),
    /** Fiscal receipt settings (docs/receipts.md); null until the owner sets them. */
    receipts: text("receipts", { mode: "json" }).$type<ShopReceiptSettings>(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [index("shops_account_idx").on(t.accountId)],
);
export type ShopRow = typeof shops.$inferSelect;

export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    shopId: text("shop_id")
      .notNull()
      .references(() => shops.id),
    /** SHA-256 hex of the key; the key itself is shown once and never stored. */
    keyHash: text("key_hash").notNull().unique(),
    /** The first characters of the key (e.g. "pk_live_AbCd"), so an owner can tell keys apart. */
    displayPrefix: text("display_prefix").notNull(),
    createdAt: integer("created_at").notNull(),
    revokedAt: integer("revoked_at"),
  },
  (t) => [index("api_keys_shop_idx").on(t.shopId)],
);
export type ApiKeyRow = typeof apiKeys.$inferSelect;

export const schema = { accounts, shops, apiKeys };
