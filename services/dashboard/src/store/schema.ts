import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/**
 * Times are epoch milliseconds. Accounts, shops and keys belong to the directory service
 * (docs/directory.md); a user names its account by id only, checked over rpcs.directory.
 */
export const USER_ROLES = ["merchant", "operator"] as const;
export type UserRole = (typeof USER_ROLES)[number];

/** People who sign in to the dashboard. A merchant owns one account; an operator owns none. */
export const users = sqliteTable(
  "users",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id"),
    /** Lower-cased, so an address is one user however it is typed. */
    email: text("email").notNull().unique(),
    /** Bun.password (argon2id) hash; the password itself is never stored. */
    passwordHash: text("password_hash").notNull(),
    role: text("role", { enum: USER_ROLES }).notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [
    index("users_account_idx").on(t.accountId),
    // An account has one merchant user: the database refuses a second, whichever replica inserts it.
    uniqueIndex("users_one_merchant_per_account").on(t.accountId).where(sql`role = 'merchant'`),
  ],
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

/**
 * Sign-in attempts counted per email and per client address (users/throttle.ts). An attempt is
 * counted when it starts, in one transaction with the check, so replicas cannot let parallel
 * guesses through between a check and its count.
 */
export const loginThrottle = sqliteTable("login_throttle", {
  key: text("key").primaryKey(),
  failures: integer("failures").notNull(),
  lastFailureAt: integer("last_failure_at").notNull(),
  lockedUntil: integer("locked_until").notNull(),
});
export type ThrottleRow = typeof loginThrottle.$inferSelect;

/**
 * The one-shot message of a session's next page (web/flash.ts): a new API key or signing secret
 * among them, so the body is sealed with a key derived from the session's cookie token, which the
 * store never holds. Deleted when shown, when the session goes, or past its expiry.
 */
export const flashMessages = sqliteTable(
  "flash_messages",
  {
    sessionIdHash: text("session_id_hash")
      .primaryKey()
      .references(() => sessions.idHash, { onDelete: "cascade" }),
    path: text("path").notNull(),
    sealed: text("sealed").notNull(),
    expiresAt: integer("expires_at").notNull(),
  },
  (t) => [index("flash_messages_expires_idx").on(t.expiresAt)],
);
export type FlashRow = typeof flashMessages.$inferSelect;

export const schema = { users, sessions, loginThrottle, flashMessages };
