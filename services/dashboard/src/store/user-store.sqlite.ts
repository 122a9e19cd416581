import { and, asc, count, eq, lte } from "drizzle-orm";
import { openStore, SerialSqlite } from "@payaccept/platform";
import { flashMessages, invites, loginThrottle, recoveryCodes, schema, sessions, signInChallenges, teams, twoFactor, users } from "./schema.sqlite.ts";
import { SEVERAL_STATEMENTS, type UserOps, type UserStore } from "./user-store.ts";
import * as terms from "./user-terms.ts";

/** The dashboard's store on its SQLite file, every statement queued by SerialSqlite. */
export function openSqliteUserStore(path: string, migrationsFolder: string): UserStore {
  const { sqlite, db } = openStore(path, schema, migrationsFolder);
  const serial = new SerialSqlite(sqlite);
  const throttleOf = (key: string) => db.select().from(loginThrottle).where(eq(loginThrottle.key, key)).get();

  const ops: UserOps = {
    userByEmail: async (email) => db.select().from(users).where(eq(users.email, email)).get(),
    userById: async (id) => db.select().from(users).where(eq(users.id, id)).get(),
    ownerEmails: async (accountIds) =>
      accountIds.length === 0
        ? new Map()
        : terms.firstEmailByAccount(db.select({ accountId: users.accountId, email: users.email }).from(users).where(terms.ownersOf(users, accountIds)).orderBy(...terms.memberOrder(users)).all()),
    insertUser: async (row) => void db.insert(users).values(row).run(),
    insertTeam: async (row) => void db.insert(teams).values(row).run(),
    // The transaction's BEGIN IMMEDIATE already holds the whole file.
    teamForUpdate: async (accountId) => db.select().from(teams).where(eq(teams.accountId, accountId)).get(),
    setRequireTwoFactor: async (accountId, required) => void db.update(teams).set({ requireTwoFactor: required }).where(eq(teams.accountId, accountId)).run(),
    members: async (accountId) =>
      db
        .select({ user: users, enabledAt: twoFactor.enabledAt })
        .from(users)
        .leftJoin(twoFactor, eq(twoFactor.userId, users.id))
        .where(eq(users.accountId, accountId))
        .orderBy(...terms.memberOrder(users))
        .all()
        .map(terms.memberOf),
    setRole: async (userId, role) => void db.update(users).set({ role }).where(eq(users.id, userId)).run(),
    endSessionsOf: async (userId) => void db.delete(sessions).where(eq(sessions.userId, userId)).run(),
    deleteUser: async (userId) => {
      db.delete(sessions).where(eq(sessions.userId, userId)).run();
      db.delete(users).where(eq(users.id, userId)).run();
    },

    insertSession: async (row) => {
      db.delete(sessions).where(lte(sessions.expiresAt, row.createdAt)).run();
      db.insert(sessions).values(row).run();
    },
    sessionWithUser: async (idHash) => {
      const row = db
        .select({ session: sessions, user: users, team: teams, enabledAt: twoFactor.enabledAt })
        .from(sessions)
        .innerJoin(users, eq(users.id, sessions.userId))
        .leftJoin(teams, eq(teams.accountId, users.accountId))
        .leftJoin(twoFactor, eq(twoFactor.userId, users.id))
        .where(eq(sessions.idHash, idHash))
        .get();
      return row && terms.sessionOf(row);
    },
    deleteSession: async (idHash) => void db.delete(sessions).where(eq(sessions.idHash, idHash)).run(),
    markFresh: async (idHash, at) => void db.update(sessions).set({ freshAt: at }).where(eq(sessions.idHash, idHash)).run(),

    putInvite: async (row, now) => {
      db.delete(invites).where(terms.expiredInvites(invites, now)).run();
      const { id: _id, accountId: _a, email: _e, ...renewed } = row;
      db.insert(invites).values(row).onConflictDoUpdate({ target: [invites.accountId, invites.email], set: renewed }).run();
    },
    invitesOf: async (accountId, now) =>
      db.select().from(invites).where(and(eq(invites.accountId, accountId), terms.pendingInvite(invites, now))).orderBy(asc(invites.createdAt), asc(invites.id)).all(),
    inviteByToken: async (tokenHash, now) => db.select().from(invites).where(terms.pendingInviteByToken(invites, tokenHash, now)).get(),
    takeInvite: async (tokenHash, now) => db.delete(invites).where(terms.pendingInviteByToken(invites, tokenHash, now)).returning().get(),
    deleteInvite: async (accountId, inviteId) => db.delete(invites).where(terms.inviteOfAccount(invites, accountId, inviteId)).returning({ id: invites.id }).all().length > 0,

    twoFactorOf: async (userId) => db.select().from(twoFactor).where(eq(twoFactor.userId, userId)).get(),
    startTwoFactor: async (row) => {
      const { userId: _u, ...fresh } = row;
      db.insert(twoFactor).values(row).onConflictDoUpdate({ target: twoFactor.userId, set: fresh, setWhere: terms.waitingTwoFactor(twoFactor, row.userId) }).run();
    },
    enableTwoFactor: async (userId, step, at) =>
      db.update(twoFactor).set({ enabledAt: at, lastStep: step }).where(terms.waitingTwoFactor(twoFactor, userId)).returning({ userId: twoFactor.userId }).all().length > 0,
    takeStep: async (userId, step) => db.update(twoFactor).set({ lastStep: step }).where(terms.laterStep(twoFactor, userId, step)).returning({ userId: twoFactor.userId }).all().length > 0,
    deleteTwoFactor: async (userId) => {
      db.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId)).run();
      db.delete(twoFactor).where(eq(twoFactor.userId, userId)).run();
    },
    replaceRecoveryCodes: async (userId, codeHashes) => {
      db.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId)).run();
      if (codeHashes.length > 0) db.insert(recoveryCodes).values(codeHashes.map((codeHash) => ({ userId, codeHash, usedAt: null }))).run();
    },
    useRecoveryCode: async (userId, codeHash, at) =>
      db.update(recoveryCodes).set({ usedAt: at }).where(terms.unusedCode(recoveryCodes, userId, codeHash)).returning({ userId: recoveryCodes.userId }).all().length > 0,
    recoveryCodesLeft: async (userId) => db.select({ n: count() }).from(recoveryCodes).where(terms.unusedCodesOf(recoveryCodes, userId)).get()?.n ?? 0,

    insertChallenge: async (row, now) => {
      db.delete(signInChallenges).where(lte(signInChallenges.expiresAt, now)).run();
      db.insert(signInChallenges).values(row).run();
    },
    challenge: async (idHash) => db.select().from(signInChallenges).where(eq(signInChallenges.idHash, idHash)).get(),
    deleteChallenge: async (idHash) => void db.delete(signInChallenges).where(eq(signInChallenges.idHash, idHash)).run(),

    putFlash: async (row, now) => {
      db.delete(flashMessages).where(lte(flashMessages.expiresAt, now)).run();
      db.insert(flashMessages).values(row).onConflictDoUpdate({ target: flashMessages.sessionIdHash, set: row }).run();
    },
    takeFlash: async (sessionIdHash) => db.delete(flashMessages).where(eq(flashMessages.sessionIdHash, sessionIdHash)).returning().get(),
  };

  // A method of several statements is one IMMEDIATE transaction outside tx() too.
  const atomic = <K extends keyof UserOps>(...names: readonly K[]) =>
    Object.fromEntries(names.map((name) => [name, (...args: never[]) => serial.tx(() => (ops[name] as (...a: never[]) => Promise<unknown>)(...args))])) as Pick<UserOps, K>;
  return {
    ...serial.outsideTx(ops),
    ...atomic(...SEVERAL_STATEMENTS),
    // The whole file is the lock: every unit runs one at a time, in every process.
    tx: (fn) => serial.tx(() => fn(ops)),
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
