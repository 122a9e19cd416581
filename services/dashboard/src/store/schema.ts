import { bothEngines, table, type Row } from "@payaccept/platform/table";

/**
 * Times are epoch milliseconds. Accounts, shops and keys belong to the directory service
 * (docs/directory.md); a user names its account by id only, checked over rpcs.directory.
 */
/**
 * What a member of an account may do (web/access.ts has the table): the owner (or owners) and
 * admins run the team; developers keys, webhooks and receipt settings; accountants payments, CSV
 * and the balance; support payments and refunds; viewers read.
 */
export const ACCOUNT_ROLES = ["owner", "admin", "developer", "accountant", "support", "viewer"] as const;
export type AccountRole = (typeof ACCOUNT_ROLES)[number];
/** An operator is the platform's staff: no account, every shop (docs/dashboard.md, "Operators"). */
export const USER_ROLES = [...ACCOUNT_ROLES, "operator"] as const;
export type UserRole = (typeof USER_ROLES)[number];

/**
 * The team of a directory account: one row per account that has members, made with its first owner
 * (sign-up, user:create-merchant), so a second "first owner" is refused by its primary key. Every
 * change of the team's members runs holding this row (UserStore.updateTeam).
 */
export const teams = table("teams", (k) => ({
  accountId: k.text("account_id").primaryKey(),
  /** Every member signs in with a second factor; one without it is sent to enrol before anything else. */
  requireTwoFactor: k.boolean("require_two_factor").notNull().default(false),
  createdAt: k.bigint("created_at").notNull(),
}));
export type TeamRow = Row<typeof teams>;

/** People who sign in to the dashboard: a member of one account's team with a role, or an operator (no account). */
export const users = table(
  "users",
  (k) => ({
    id: k.text("id").primaryKey(),
    accountId: k.text("account_id"),
    /** Lower-cased, so an address is one user however it is typed; one sign-in belongs to one account. */
    email: k.text("email").notNull().unique(),
    /** Bun.password (argon2id) hash; the password itself is never stored. */
    passwordHash: k.text("password_hash").notNull(),
    role: k.text("role", { enum: USER_ROLES }).notNull(),
    createdAt: k.bigint("created_at").notNull(),
  }),
  (t, x) => [x.index("users_account_idx").on(t.accountId)],
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
    /**
     * When this session's person last proved who they are (the sign-in, or a confirmation since):
     * sensitive actions need it recent (web/access.ts, DASHBOARD_REAUTH_AFTER).
     */
    freshAt: k.bigint("fresh_at").notNull().default(0),
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

/**
 * An invitation to a team, by email, with the role the person gets: the link carries a random token
 * shown once (and mailed when SMTP_URL is set); the store keeps its SHA-256. Single use: accepting
 * deletes the row in the transaction that makes the user. One pending invitation per email and
 * account: inviting again replaces it (the earlier link stops working).
 */
export const invites = table(
  "invites",
  (k) => ({
    id: k.text("id").primaryKey(),
    accountId: k.text("account_id").notNull().references(() => teams, "accountId", { onDelete: "cascade" }),
    email: k.text("email").notNull(),
    role: k.text("role", { enum: ACCOUNT_ROLES }).notNull(),
    tokenHash: k.text("token_hash").notNull().unique(),
    /** Who invited, as shown to the invitee (the inviter may have left since). */
    invitedByEmail: k.text("invited_by_email").notNull(),
    createdAt: k.bigint("created_at").notNull(),
    expiresAt: k.bigint("expires_at").notNull(),
  }),
  (t, x) => [x.uniqueIndex("invites_account_email_uq").on(t.accountId, t.email), x.index("invites_expires_idx").on(t.expiresAt)],
);
export type InviteRow = Row<typeof invites>;

/**
 * A user's TOTP (RFC 6238) second factor. The secret is kept as it is: verifying a code needs it
 * (docs/dashboard.md, "Two-factor sign-in", says why it is not sealed). A row without `enabledAt`
 * is an enrolment waiting for its first code.
 */
export const twoFactor = table("two_factor", (k) => ({
  userId: k.text("user_id").primaryKey().references(() => users, "id", { onDelete: "cascade" }),
  /** Base32, as the authenticator app took it from the QR code. */
  secret: k.text("secret").notNull(),
  enabledAt: k.bigint("enabled_at"),
  /** The time step of the last code accepted: a code of that step or an earlier one is refused (no replay). */
  lastStep: k.bigint("last_step").notNull().default(0),
  createdAt: k.bigint("created_at").notNull(),
}));
export type TwoFactorRow = Row<typeof twoFactor>;

/** Single-use codes for a lost authenticator: SHA-256 of each (they are random), shown once when made. */
export const recoveryCodes = table(
  "recovery_codes",
  (k) => ({
    userId: k.text("user_id").notNull().references(() => users, "id", { onDelete: "cascade" }),
    codeHash: k.text("code_hash").notNull(),
    usedAt: k.bigint("used_at"),
  }),
  (t, x) => [x.primaryKey(t.userId, t.codeHash)],
);
export type RecoveryCodeRow = Row<typeof recoveryCodes>;

/**
 * A sign-in halfway: the password was right and the user has a second factor. The browser holds
 * the random token (cookie dash_2fa, five minutes); the store its SHA-256. A session is made only
 * once the code is right, so a session always means fully signed in.
 */
export const signInChallenges = table(
  "sign_in_challenges",
  (k) => ({
    idHash: k.text("id_hash").primaryKey(),
    userId: k.text("user_id").notNull().references(() => users, "id", { onDelete: "cascade" }),
    expiresAt: k.bigint("expires_at").notNull(),
  }),
  (t, x) => [x.index("sign_in_challenges_expires_idx").on(t.expiresAt)],
);
export type SignInChallengeRow = Row<typeof signInChallenges>;

/** The dashboard's tables; schema.sqlite.ts and schema.pg.ts hand each engine its own. */
export const tables = bothEngines({ teams, users, sessions, loginThrottle, flashMessages, invites, twoFactor, recoveryCodes, signInChallenges });
