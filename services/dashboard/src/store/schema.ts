import { sql } from "drizzle-orm";
import { bothEngines, table, type Row } from "@payaccept/platform/table";

/**
 * Times are epoch milliseconds. Accounts, shops and keys belong to the directory service
 * (docs/directory.md); a user names its account by id only, checked over rpcs.directory.
 */
export const USER_ROLES = ["merchant", "operator"] as const;
export type UserRole = (typeof USER_ROLES)[number];

/** People who sign in to the dashboard. A merchant owns one account; an operator owns none. */
export const users = table(
  "users",
  (k) => ({
    id: k.text("id").primaryKey(),
    accountId: k.text("account_id"),
    /** Lower-cased, so an address is one user however it is typed. */
    email: k.text("email").notNull().unique(),
    /** Bun.password (argon2id) hash; the password itself is never stored. */
    passwordHash: k.text("password_hash").notNull(),
    role: k.text("role", { enum: USER_ROLES }).notNull(),
    createdAt: k.bigint("created_at").notNull(),
  }),
  (t, x) => [
    x.index("users_account_idx").on(t.accountId),
    // An account has one merchant user: the database refuses a second, whichever replica inserts it.
    x.uniqueIndex("users_one_merchant_per_account").on(t.accountId).where(sql`role = 'merchant'`),
  ],
);
export type UserRow = Row<typeof users>;

export const sessions = table(
  "sessions",
  (k) => ({
    /** SHA-256 hex of the cookie's token: a stolen database does not hand out live sessions. */
    idHash: k.text("id_hash").primaryKey(),
    userId: k.text("user_id").notNull().references(() => users, "id"),
    createdAt: k.bigint("created_at").notNull(),
    expiresAt: k.bigint("expires_at").notNull(),
  }),
  (t, x) => [x.index("sessions_user_idx").on(t.userId), x.index("sessions_expires_idx").on(t.expiresAt)],
);
export type SessionRow = Row<typeof sessions>;

/**
 * Sign-in attempts counted per email and per client address (users/throttle.ts). An attempt is
 * counted when it starts, in one transaction with the check, so replicas cannot let parallel
 * guesses through between a check and its count.
 */
export const loginThrottle = table("login_throttle", (k) => ({
  key: k.text("key").primaryKey(),
  failures: k.bigint("failures").notNull(),
  lastFailureAt: k.bigint("last_failure_at").notNull(),
  lockedUntil: k.bigint("locked_until").notNull(),
}));
export type ThrottleRow = Row<typeof loginThrottle>;

/**
 * The one-shot message of a session's next page (web/flash.ts): a new API key or signing secret
 * among them, so the body is sealed with a key derived from the session's cookie token, which the
 * store never holds. Deleted when shown, when the session goes, or past its expiry.
 */
export const flashMessages = table(
  "flash_messages",
  (k) => ({
    sessionIdHash: k.text("session_id_hash").primaryKey().references(() => sessions, "idHash", { onDelete: "cascade" }),
    path: k.text("path").notNull(),
    sealed: k.text("sealed").notNull(),
    expiresAt: k.bigint("expires_at").notNull(),
  }),
  (t, x) => [x.index("flash_messages_expires_idx").on(t.expiresAt)],
);
export type FlashRow = Row<typeof flashMessages>;

/** The dashboard's tables; schema.sqlite.ts and schema.pg.ts hand each engine its own. */
export const tables = bothEngines({ users, sessions, loginThrottle, flashMessages });
