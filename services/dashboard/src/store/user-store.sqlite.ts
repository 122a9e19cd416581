import { eq, lte } from "drizzle-orm";
import { openStore, SerialSqlite } from "@payaccept/platform";
import { flashMessages, loginThrottle, schema, sessions, users } from "./schema.sqlite.ts";
import type { UserStore } from "./user-store.ts";
import { merchantOf, merchantsOf } from "./user-terms.ts";

/** The dashboard's store on its SQLite file, every statement queued by SerialSqlite. */
export function openSqliteUserStore(path: string, migrationsFolder: string): UserStore {
  const { sqlite, db } = openStore(path, schema, migrationsFolder);
  const serial = new SerialSqlite(sqlite);
  const throttleOf = (key: string) => db.select().from(loginThrottle).where(eq(loginThrottle.key, key)).get();

  return {
    ...serial.outsideTx({
      userByEmail: async (email: string) => db.select().from(users).where(eq(users.email, email)).get(),
      merchantEmail: async (accountId: string) =>
        db.select({ email: users.email }).from(users).where(merchantOf(users, accountId)).get()?.email,
      merchantEmails: async (accountIds: string[]) => {
        if (accountIds.length === 0) return new Map<string, string>();
        const rows = db
          .select({ accountId: users.accountId, email: users.email })
          .from(users)
          .where(merchantsOf(users, accountIds))
          .all();
        return new Map(rows.map((r) => [r.accountId!, r.email]));
      },
      insertUser: async (row) => void db.insert(users).values(row).run(),
      sessionWithUser: async (idHash: string) =>
        db.select({ session: sessions, user: users }).from(sessions).innerJoin(users, eq(users.id, sessions.userId)).where(eq(sessions.idHash, idHash)).get(),
      deleteSession: async (idHash: string) => void db.delete(sessions).where(eq(sessions.idHash, idHash)).run(),
      takeFlash: async (sessionIdHash: string) => db.delete(flashMessages).where(eq(flashMessages.sessionIdHash, sessionIdHash)).returning().get(),
    } satisfies Partial<UserStore>),
    insertSession: (row) =>
      serial.tx(async () => {
        db.delete(sessions).where(lte(sessions.expiresAt, row.createdAt)).run();
        db.insert(sessions).values(row).run();
      }),
    putFlash: (row, now) =>
      serial.tx(async () => {
        db.delete(flashMessages).where(lte(flashMessages.expiresAt, now)).run();
        db.insert(flashMessages).values(row).onConflictDoUpdate({ target: flashMessages.sessionIdHash, set: row }).run();
      }),
    updateThrottles: (keys, decide) =>
      serial.tx(async () => {
        const change = decide(keys.map(throttleOf));
        for (const row of change.save) db.insert(loginThrottle).values(row).onConflictDoUpdate({ target: loginThrottle.key, set: row }).run();
        for (const key of change.clear) db.delete(loginThrottle).where(eq(loginThrottle.key, key)).run();
        return change.result;
      }),
    close: async () => serial.exclusive(() => sqlite.close()),
  };
}
