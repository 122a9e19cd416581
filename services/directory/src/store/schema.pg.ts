import { bigint, boolean, index, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import type { PaymentMethod, ShopReceiptSettings, Tariff } from "@payaccept/contracts";

/**
 * The directory's tables on PostgreSQL: the same tables, keys and indexes as schema.ts (whose
 * comments say what each holds; schema-drift.test.ts keeps the two equal). Epoch ms are bigint.
 */
const int = (name: string) => bigint(name, { mode: "number" });

export const accounts = pgTable("accounts", {
  id: text("id").primaryKey(),
  createdAt: int("created_at").notNull(),
});

export const shops = pgTable(
  "shops",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    name: text("name").notNull(),
    active: boolean("active").notNull(),
    sandbox: boolean("sandbox").notNull(),
    methods: jsonb("methods").$type<PaymentMethod[]>().notNull(),
    tariff: jsonb("tariff").$type<Tariff>().notNull(),
    webhookUrl: text("webhook_url"),
    signingSecret: text("signing_secret").notNull(),
    successUrl: text("success_url"),
    failUrl: text("fail_url"),
    receipts: jsonb("receipts").$type<ShopReceiptSettings>(),
    createdAt: int("created_at").notNull(),
    updatedAt: int("updated_at").notNull(),
  },
  (t) => [index("shops_account_idx").on(t.accountId)],
);

export const apiKeys = pgTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    shopId: text("shop_id")
      .notNull()
      .references(() => shops.id),
    keyHash: text("key_hash").notNull().unique(),
    displayPrefix: text("display_prefix").notNull(),
    createdAt: int("created_at").notNull(),
    revokedAt: int("revoked_at"),
  },
  (t) => [index("api_keys_shop_idx").on(t.shopId)],
);

export const schema = { accounts, shops, apiKeys };
