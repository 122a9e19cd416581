import { asc, eq, inArray, lte } from "drizzle-orm";
import type { PgStore } from "@payaccept/platform";
import * as pg from "./schema.pg.ts";
import { flashMessages, loginThrottle, sessions, users } from "./schema.pg.ts";
import type { UserStore } from "./user-store.ts";
import { merchantOf, merchantsOf } from "./user-terms.ts";

/** The dashboard's store on PostgreSQL; locks as UserStore.updateThrottles says. */
export function openPgUserStore({ db, close }: PgStore<typeof pg.schema>): UserStore {
  const first = async <R>(rows: Promise<R[]>) => (await rows)[0];
  return {
    userByEmail: (email) => first(db.select().from(users).where(eq(users.email, email))),
    merchantEmail: async (accountId) =>
      (await first(db.select({ email: users.email }).from(users).where(merchantOf(users, accountId))))?.email,
    merchantEmails: async (accountIds) => {
      if (accountIds.length === 0) return new Map();
      const rows = await db
        .select({ accountId: users.accountId, email: users.email })
        .from(users)
        .where(merchantsOf(users, accountIds));
      return new Map(rows.map((r) => [r.accountId!, r.email]));
    },
    insertUser: async (row) => void (await db.insert(users).values(row)),
    insertSession: (row) =>
      db.transaction(async (tx) => {
        await tx.delete(sessions).where(lte(sessions.expiresAt, row.createdAt));
        await tx.insert(sessions).values(row);
      }),
    sessionWithUser: (idHash) =>
      first(db.select({ session: sessions, user: users }).from(sessions).innerJoin(users, eq(users.id, sessions.userId)).where(eq(sessions.idHash, idHash))),
    deleteSession: async (idHash) => void (await db.delete(sessions).where(eq(sessions.idHash, idHash))),
    putFlash: (row, now) =>
      db.transaction(async (tx) => {
        await tx.delete(flashMessages).where(lte(flashMessages.expiresAt, now));
        await tx.insert(flashMessages).values(row).onConflictDoUpdate({ target: flashMessages.sessionIdHash, set: row });
      }),
    takeFlash: (sessionIdHash) => first(db.delete(flashMessages).where(eq(flashMessages.sessionIdHash, sessionIdHash)).returning()),
    updateThrottles: (keys, decide) =>
      db.transaction(async (tx) => {
        // A key's first attempt has no row to lock yet: an empty one (no failures) is made first.
        await tx
          .insert(loginThrottle)
          .values([...keys].sort().map((key) => ({ key, failures: 0, lastFailureAt: 0, lockedUntil: 0 })))
          .onConflictDoNothing();
        const locked = await tx.select().from(loginThrottle).where(inArray(loginThrottle.key, keys)).orderBy(asc(loginThrottle.key)).for("update");
        const change = decide(keys.map((key) => locked.find((r) => r.key === key)));
        for (const row of change.save) await tx.insert(loginThrottle).values(row).onConflictDoUpdate({ target: loginThrottle.key, set: row });
        if (change.clear.length > 0) await tx.delete(loginThrottle).where(inArray(loginThrottle.key, change.clear));
        return change.result;
      }),
    close,
  };
}
