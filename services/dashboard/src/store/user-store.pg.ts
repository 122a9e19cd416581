import { and, asc, count, eq, inArray, lte } from "drizzle-orm";
import type { BunSQLDatabase } from "drizzle-orm/bun-sql";
import type { PgStore } from "@payaccept/platform";
import * as pg from "./schema.pg.ts";
import { flashMessages, invites, loginThrottle, recoveryCodes, sessions, signInChallenges, teams, twoFactor, users } from "./schema.pg.ts";
import { SEVERAL_STATEMENTS, type UserOps, type UserStore } from "./user-store.ts";
import * as terms from "./user-terms.ts";

type Db = BunSQLDatabase<typeof pg.schema>;
/** The pool's database or a transaction's: the statements are the same. */
type Runner = Pick<Db, "select" | "insert" | "update" | "delete">;

const first = async <R>(rows: Promise<R[]>) => (await rows)[0];

function pgOps(db: Runner): UserOps {
  return {
    userByEmail: (email) => first(db.select().from(users).where(eq(users.email, email))),
    userById: (id) => first(db.select().from(users).where(eq(users.id, id))),
    ownerEmails: async (accountIds) =>
      accountIds.length === 0
        ? new Map()
        : terms.firstEmailByAccount(await db.select({ accountId: users.accountId, email: users.email }).from(users).where(terms.ownersOf(users, accountIds)).orderBy(...terms.memberOrder(users))),
    insertUser: async (row) => void (await db.insert(users).values(row)),
    insertTeam: async (row) => void (await db.insert(teams).values(row)),
    teamForUpdate: (accountId) => first(db.select().from(teams).where(eq(teams.accountId, accountId)).for("update")),
    setRequireTwoFactor: async (accountId, required) => void (await db.update(teams).set({ requireTwoFactor: required }).where(eq(teams.accountId, accountId))),
    members: async (accountId) =>
      (
        await db
          .select({ user: users, enabledAt: twoFactor.enabledAt })
          .from(users)
          .leftJoin(twoFactor, eq(twoFactor.userId, users.id))
          .where(eq(users.accountId, accountId))
          .orderBy(...terms.memberOrder(users))
      ).map(terms.memberOf),
    setRole: async (userId, role) => void (await db.update(users).set({ role }).where(eq(users.id, userId))),
    endSessionsOf: async (userId) => void (await db.delete(sessions).where(eq(sessions.userId, userId))),
    deleteUser: async (userId) => {
      await db.delete(sessions).where(eq(sessions.userId, userId));
      await db.delete(users).where(eq(users.id, userId));
    },

    insertSession: async (row) => {
      await db.delete(sessions).where(lte(sessions.expiresAt, row.createdAt));
      await db.insert(sessions).values(row);
    },
    sessionWithUser: async (idHash) => {
      const row = await first(
        db
          .select({ session: sessions, user: users, team: teams, enabledAt: twoFactor.enabledAt })
          .from(sessions)
          .innerJoin(users, eq(users.id, sessions.userId))
          .leftJoin(teams, eq(teams.accountId, users.accountId))
          .leftJoin(twoFactor, eq(twoFactor.userId, users.id))
          .where(eq(sessions.idHash, idHash)),
      );
      return row && terms.sessionOf(row);
    },
    deleteSession: async (idHash) => void (await db.delete(sessions).where(eq(sessions.idHash, idHash))),
    markFresh: async (idHash, at) => void (await db.update(sessions).set({ freshAt: at }).where(eq(sessions.idHash, idHash))),

    putInvite: async (row, now) => {
      await db.delete(invites).where(terms.expiredInvites(invites, now));
      const { id: _id, accountId: _a, email: _e, ...renewed } = row;
      await db.insert(invites).values(row).onConflictDoUpdate({ target: [invites.accountId, invites.email], set: renewed });
    },
    invitesOf: (accountId, now) =>
      db.select().from(invites).where(and(eq(invites.accountId, accountId), terms.pendingInvite(invites, now))).orderBy(asc(invites.createdAt), asc(invites.id)),
    inviteByToken: (tokenHash, now) => first(db.select().from(invites).where(terms.pendingInviteByToken(invites, tokenHash, now))),
    takeInvite: (tokenHash, now) => first(db.delete(invites).where(terms.pendingInviteByToken(invites, tokenHash, now)).returning()),
    deleteInvite: async (accountId, inviteId) => (await db.delete(invites).where(terms.inviteOfAccount(invites, accountId, inviteId)).returning({ id: invites.id })).length > 0,

    twoFactorOf: (userId) => first(db.select().from(twoFactor).where(eq(twoFactor.userId, userId))),
    startTwoFactor: async (row) => {
      const { userId: _u, ...fresh } = row;
      await db.insert(twoFactor).values(row).onConflictDoUpdate({ target: twoFactor.userId, set: fresh, setWhere: terms.waitingTwoFactor(twoFactor, row.userId) });
    },
    enableTwoFactor: async (userId, step, at) =>
      (await db.update(twoFactor).set({ enabledAt: at, lastStep: step }).where(terms.waitingTwoFactor(twoFactor, userId)).returning({ userId: twoFactor.userId })).length > 0,
    takeStep: async (userId, step) => (await db.update(twoFactor).set({ lastStep: step }).where(terms.laterStep(twoFactor, userId, step)).returning({ userId: twoFactor.userId })).length > 0,
    deleteTwoFactor: async (userId) => {
      await db.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId));
      await db.delete(twoFactor).where(eq(twoFactor.userId, userId));
    },
    replaceRecoveryCodes: async (userId, codeHashes) => {
      await db.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId));
      if (codeHashes.length > 0) await db.insert(recoveryCodes).values(codeHashes.map((codeHash) => ({ userId, codeHash, usedAt: null })));
    },
    useRecoveryCode: async (userId, codeHash, at) =>
      (await db.update(recoveryCodes).set({ usedAt: at }).where(terms.unusedCode(recoveryCodes, userId, codeHash)).returning({ userId: recoveryCodes.userId })).length > 0,
    recoveryCodesLeft: async (userId) => (await first(db.select({ n: count() }).from(recoveryCodes).where(terms.unusedCodesOf(recoveryCodes, userId))))?.n ?? 0,

    insertChallenge: async (row, now) => {
      await db.delete(signInChallenges).where(lte(signInChallenges.expiresAt, now));
      await db.insert(signInChallenges).values(row);
    },
    challenge: (idHash) => first(db.select().from(signInChallenges).where(eq(signInChallenges.idHash, idHash))),
    deleteChallenge: async (idHash) => void (await db.delete(signInChallenges).where(eq(signInChallenges.idHash, idHash))),

    putFlash: async (row, now) => {
      await db.delete(flashMessages).where(lte(flashMessages.expiresAt, now));
      await db.insert(flashMessages).values(row).onConflictDoUpdate({ target: flashMessages.sessionIdHash, set: row });
    },
    takeFlash: (sessionIdHash) => first(db.delete(flashMessages).where(eq(flashMessages.sessionIdHash, sessionIdHash)).returning()),
  };
}

/** The dashboard's store on PostgreSQL; locks as UserStore.updateThrottles and UserOps.teamForUpdate say. */
export function openPgUserStore({ db, close }: PgStore<typeof pg.schema>): UserStore {
  const ops = pgOps(db);
  // Methods of several statements run as one transaction outside tx() too.
  const atomic = <K extends keyof UserOps>(...names: readonly K[]) =>
    Object.fromEntries(names.map((name) => [name, (...args: never[]) => db.transaction((tx) => (pgOps(tx)[name] as (...a: never[]) => Promise<unknown>)(...args))])) as Pick<UserOps, K>;
  return {
    ...ops,
    ...atomic(...SEVERAL_STATEMENTS),
    tx: (fn) => db.transaction((tx) => fn(pgOps(tx))),
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
