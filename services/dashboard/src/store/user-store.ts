import type { FlashRow, SessionRow, ThrottleRow, UserRow } from "./schema.ts";

/** The dashboard's store as its users see it, whichever engine holds it; open-user-store.ts opens it. */

export type SessionWithUser = { session: SessionRow; user: UserRow };

/** What a throttle decision writes: rows to save, keys to forget, and what the caller learns. */
export type ThrottleChange<T> = { save: ThrottleRow[]; clear: string[]; result: T };

/**
 * Users, their sessions, the sign-in throttle and the one-shot messages, the same on SQLite and
 * PostgreSQL (docs/conventions.md, "One repository, two engines"). Nothing a later request needs
 * is kept in a process's memory, so any dashboard replica can serve it (docs/dashboard.md, "Replicas").
 */
export interface UserStore {
  userByEmail(email: string): Promise<UserRow | undefined>;
  /** The merchant who owns the account, for operators' pages. */
  merchantEmail(accountId: string): Promise<string | undefined>;
  /** The merchants' emails of the accounts (operators' shop list), by account id. */
  merchantEmails(accountIds: string[]): Promise<Map<string, string>>;
  /** Throws what isUniqueViolation recognises when the email is taken or the account has its merchant. */
  insertUser(row: UserRow): Promise<void>;
  /** Also deletes the sessions (and their messages) that have expired by `row.createdAt`. */
  insertSession(row: SessionRow): Promise<void>;
  sessionWithUser(idHash: string): Promise<SessionWithUser | undefined>;
  deleteSession(idHash: string): Promise<void>;
  /** The session's one pending message, replacing an earlier one; expired messages of any session go. */
  putFlash(row: FlashRow, now: number): Promise<void>;
  /** Deletes and returns the session's pending message: one read shows it, whichever replica reads. */
  takeFlash(sessionIdHash: string): Promise<FlashRow | undefined>;
  /**
   * Reads the keys' throttle rows and writes what `decide` makes of them, as one unit serialised
   * with every other on those keys from any replica: on SQLite by the file's write lock (BEGIN
   * IMMEDIATE), on PostgreSQL by the keys' rows (SELECT … FOR UPDATE, in key order, so two units
   * never wait for each other).
   */
  updateThrottles<T>(keys: string[], decide: (rows: (ThrottleRow | undefined)[]) => ThrottleChange<T>): Promise<T>;
  close(): Promise<void>;
}

/**
 * A UNIQUE key refused the row: SQLSTATE 23505 on PostgreSQL (drizzle wraps the driver's error,
 * so causes are followed), SQLITE_CONSTRAINT_UNIQUE on SQLite. Recognised by code, never by message.
 */
export function isUniqueViolation(e: unknown): boolean {
  let err = e;
  for (let depth = 0; depth < 4 && err; depth++, err = (err as { cause?: unknown }).cause) {
    const { code, errno } = err as { code?: unknown; errno?: unknown };
    if (errno === "23505" || code === "23505" || code === "SQLITE_CONSTRAINT_UNIQUE") return true;
  }
  return false;
}
