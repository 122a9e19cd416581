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

export const USER_ROLES = ["merchant", "operator"] as const;
export type UserRole = (typeof USER_ROLES)[number];

/** People who sign in to the dashboard. A merchant owns one account; an operator owns none. */
export const users = sqliteTable(
  "users",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id").references(() => accounts.id),
    /** Lower-cased, so an address is one user however it is typed. */
    email: text("email").notNull().unique(),
    /** Bun.password (argon2id) hash; the password itself is never stored. */
    passwordHash: text("password_hash").notNull(),
    role: text("role", { enum: USER_ROLES }).notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("users_account_idx").on(t.accountId)],
);
export type UserRow = typeof users.$inferSelect;

export const sessions = sqliteTable(
  "sessions",
  {
    /** SHA-256 hex of the cookie's token: a stolen database does not hand out live sessions. */
    idHash: text("id_hash").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    createdAt: integer("created_at").notNull(),
    expiresAt: integer("expires_at").notNull(),
  },
  (t) => [index("sessions_user_idx").on(t.userId), index("sessions_expires_idx").on(t.expiresAt)],
);
export type SessionRow = typeof sessions.$inferSelect;

/** Failed sign-ins (and sign-ups) counted per email and per client address; see web/auth/throttle.ts. */
export const loginThrottle = sqliteTable("login_throttle", {
  key: text("key").primaryKey(),
  failures: integer("failures").notNull(),
  lastFailureAt: integer("last_failure_at").notNull(),
  lockedUntil: integer("locked_until").notNull(),
});
export type ThrottleRow = typeof loginThrottle.$inferSelect;

export const schema = { accounts, shops, apiKeys, users, sessions, loginThrottle };
