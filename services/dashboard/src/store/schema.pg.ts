import { sql } from "drizzle-orm";
import { bigint, index, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { USER_ROLES } from "./schema.ts";

/**
 * The dashboard's tables on PostgreSQL: the same tables, keys and indexes as schema.ts (whose
 * comments say what each holds; schema-drift.test.ts keeps the two equal). Epoch ms are bigint.
 */
const int = (name: string) => bigint(name, { mode: "number" });

export const users = pgTable(
  "users",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id"),
    email: text("email").notNull().unique(),
    passwordHash: text("password_hash").notNull(),
    role: text("role", { enum: USER_ROLES }).notNull(),
    createdAt: int("created_at").notNull(),
  },
  (t) => [
    index("users_account_idx").on(t.accountId),
    uniqueIndex("users_one_merchant_per_account").on(t.accountId).where(sql`role = 'merchant'`),
  ],
);

export const sessions = pgTable(
  "sessions",
  {
    idHash: text("id_hash").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    createdAt: int("created_at").notNull(),
    expiresAt: int("expires_at").notNull(),
  },
  (t) => [index("sessions_user_idx").on(t.userId), index("sessions_expires_idx").on(t.expiresAt)],
);

export const loginThrottle = pgTable("login_throttle", {
  key: text("key").primaryKey(),
  failures: int("failures").notNull(),
  lastFailureAt: int("last_failure_at").notNull(),
  lockedUntil: int("locked_until").notNull(),
});

export const flashMessages = pgTable(
  "flash_messages",
  {
    sessionIdHash: text("session_id_hash")
      .primaryKey()
      .references(() => sessions.idHash, { onDelete: "cascade" }),
    path: text("path").notNull(),
    sealed: text("sealed").notNull(),
    expiresAt: int("expires_at").notNull(),
  },
  (t) => [index("flash_messages_expires_idx").on(t.expiresAt)],
);

export const schema = { users, sessions, loginThrottle, flashMessages };
