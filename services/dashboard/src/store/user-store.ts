import { and, eq, inArray, lte } from "drizzle-orm";
import type { Store } from "@payaccept/platform";
import { loginThrottle, schema, sessions, users, type SessionRow, type ThrottleRow, type UserRow } from "./schema.ts";

export type SessionWithUser = { session: SessionRow; user: UserRow };
export type DashboardDb = Store<typeof schema>;

/** Users, their sessions and the sign-in throttle. */
export class UserStore {
  constructor(private readonly store: DashboardDb) {}

  /** BEGIN IMMEDIATE: replicas sharing the file cannot interleave a check with the write it guards. */
  transaction<T>(fn: () => T): T {
    return this.store.sqlite.transaction(fn).immediate();
  }

  userByEmail(email: string): UserRow | undefined {
    return this.store.db.select().from(users).where(eq(users.email, email)).get();
  }

  /** The merchant who owns the account, for operators' pages. */
  merchantEmail(accountId: string): string | undefined {
    return this.store.db
      .select({ email: users.email })
      .from(users)
      .where(and(eq(users.accountId, accountId), eq(users.role, "merchant")))
      .get()?.email;
  }

  /** The merchants' emails of the accounts (operators' shop list), by account id. */
  merchantEmails(accountIds: string[]): Map<string, string> {
    if (accountIds.length === 0) return new Map();
    const rows = this.store.db
      .select({ accountId: users.accountId, email: users.email })
      .from(users)
      .where(and(inArray(users.accountId, accountIds), eq(users.role, "merchant")))
      .all();
    return new Map(rows.map((r) => [r.accountId!, r.email]));
  }

  insertUser(row: UserRow): void {
    this.store.db.insert(users).values(row).run();
  }

  insertSession(row: SessionRow): void {
    this.store.db.insert(sessions).values(row).run();
  }

  sessionWithUser(idHash: string): SessionWithUser | undefined {
    return this.store.db
      .select({ session: sessions, user: users })
      .from(sessions)
      .innerJoin(users, eq(users.id, sessions.userId))
      .where(eq(sessions.idHash, idHash))
      .get();
  }

  deleteSession(idHash: string): void {
    this.store.db.delete(sessions).where(eq(sessions.idHash, idHash)).run();
  }

  deleteExpiredSessions(now: number): void {
    this.store.db.delete(sessions).where(lte(sessions.expiresAt, now)).run();
  }

  throttle(key: string): ThrottleRow | undefined {
    return this.store.db.select().from(loginThrottle).where(eq(loginThrottle.key, key)).get();
  }

  saveThrottle(row: ThrottleRow): void {
    this.store.db.insert(loginThrottle).values(row).onConflictDoUpdate({ target: loginThrottle.key, set: row }).run();
  }

  clearThrottle(key: string): void {
    this.store.db.delete(loginThrottle).where(eq(loginThrottle.key, key)).run();
  }
}
