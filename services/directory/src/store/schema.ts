import { sql } from "drizzle-orm";
import { bothEngines, table, type Row } from "@payaccept/platform/table";
import { ACTOR_KINDS, AUDIT_ACTIONS, LEGAL_FORMS, type PaymentMethod, type SaveMethodConsent, type ShopConnectors, type ShopReceiptSettings, type Tariff } from "@payaccept/contracts";

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
    /** A live shop's acquirers per method, set by operators (docs/connectors.md); null: the deployment's default for every method. */
    connectors: k.json("connectors").$type<ShopConnectors>(),
    /** The secret a rotation replaced, signing beside the new one until retiring_secret_expires_at; both null otherwise. */
    retiringSecret: k.text("retiring_secret"),
    retiringSecretExpiresAt: k.bigint("retiring_secret_expires_at"),
    createdAt: k.bigint("created_at").notNull(),
    updatedAt: k.bigint("updated_at").notNull(),
  }),
  (t, x) => [
    x.index("shops_account_idx").on(t.accountId),
    // The expiry sweep finds the overlaps that ran out without reading every shop.
    x.index("shops_retiring_secret_idx").on(t.retiringSecretExpiresAt).where(sql`${t.retiringSecretExpiresAt} IS NOT NULL`),
  ],
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
    /** When it stopped working (a roll without overlap, the end of its overlap); null while it works. */
    revokedAt: k.bigint("revoked_at"),
    /** A rolled key's end: it works until then (readers check it themselves), then the sweep revokes it. */
    expiresAt: k.bigint("expires_at"),
  }),
  (t, x) => [
    x.index("api_keys_shop_idx").on(t.shopId),
    x.index("api_keys_expiring_idx").on(t.expiresAt).where(sql`${t.revokedAt} IS NULL AND ${t.expiresAt} IS NOT NULL`),
  ],
);
export type ApiKeyRow = Row<typeof apiKeys>;

/**
 * The audit log (docs/directory.md, "Audit log"): append-only. Each engine's triggers refuse
 * every UPDATE and DELETE (and TRUNCATE on PostgreSQL), whoever sends it, written by hand in the
 * migrations (drizzle/0001_keys_overlap_audit.sql, drizzle-pg/0001_keys_overlap_audit.sql).
 */
export const auditEvents = table(
  "audit_events",
  (k) => ({
    /** The event's own id: a copy of it (a retry, a redelivery) is the same row. */
    id: k.text("id").primaryKey(),
    /** When it happened, on the recording service's clock (epoch ms). */
    at: k.bigint("at").notNull(),
    action: k.text("action", { enum: AUDIT_ACTIONS }).notNull(),
    accountId: k.text("account_id"),
    shopId: k.text("shop_id"),
    actorKind: k.text("actor_kind", { enum: ACTOR_KINDS }).notNull(),
    actorId: k.text("actor_id"),
    actorLabel: k.text("actor_label").notNull(),
    actorIp: k.text("actor_ip"),
    actorUserAgent: k.text("actor_user_agent"),
    /** A member's role in their team when they acted (an admin then, a viewer now). */
    actorRole: k.text("actor_role"),
    targetType: k.text("target_type"),
    targetId: k.text("target_id"),
    before: k.json("before").$type<Record<string, unknown>>(),
    after: k.json("after").$type<Record<string, unknown>>(),
    requestId: k.text("request_id"),
    /** When the directory stored it (its store clock). */
    recordedAt: k.bigint("recorded_at").notNull(),
  }),
  (t, x) => [
    // Each list is newest first: an account's (the dashboard), a shop's, everyone's (operators).
    x.index("audit_events_account_at_idx").on(t.accountId, t.at, t.id),
    x.index("audit_events_shop_at_idx").on(t.shopId, t.at, t.id),
    x.index("audit_events_at_idx").on(t.at, t.id),
  ],
  {
    sqlite: { triggers: ["audit_events_no_update", "audit_events_no_delete"] },
    pg: { triggers: ["audit_events_no_change", "audit_events_no_truncate"] },
  },
);
export type AuditEventRow = Row<typeof auditEvents>;

/**
 * An account's legal and bank details (docs/directory.md, "Legal and bank details"): who the
 * merchant is and where payouts go. One row per account, written whole by setAccountDetails.
 */
export const accountDetails = table("account_details", (k) => ({
  accountId: k.text("account_id").primaryKey().references(() => accounts, "id"),
  legalForm: k.text("legal_form", { enum: LEGAL_FORMS }).notNull(),
  name: k.text("name").notNull(),
  inn: k.text("inn").notNull(),
  ogrn: k.text("ogrn").notNull(),
  kpp: k.text("kpp"),
  bik: k.text("bik").notNull(),
  bankName: k.text("bank_name").notNull(),
  correspondentAccount: k.text("correspondent_account").notNull(),
  settlementAccount: k.text("settlement_account").notNull(),
  recipientName: k.text("recipient_name").notNull(),
  /** When the payout account (BIK, account) was entered or last changed: payouts wait PAYOUT_ACCOUNT_HOLD from it. */
  payoutAccountChangedAt: k.bigint("payout_account_changed_at").notNull(),
  updatedAt: k.bigint("updated_at").notNull(),
}));
export type AccountDetailsRow = Row<typeof accountDetails>;

/** The directory's tables; schema.sqlite.ts and schema.pg.ts hand each engine its own. */
export const tables = bothEngines({ accounts, shops, apiKeys, auditEvents, accountDetails });
