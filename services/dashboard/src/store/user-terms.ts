import { and, asc, count, eq, gt, inArray, isNotNull, isNull, lt, lte } from "drizzle-orm";
import type { Db, Dialect, EitherTables, Run } from "@payaccept/platform";
import type { OnEither } from "@payaccept/platform/table";
import type * as schema from "./schema.ts";
import type { ThrottleRow, UserRow } from "./schema.ts";
import { SEVERAL_STATEMENTS, type Member, type SessionWithUser, type UserOps, type UserStore } from "./user-store.ts";

/**
 * What both engines' user statements share, on either schema's columns: the terms, and the
 * methods themselves (`userOps`), written once over `Db<E>` and run by the engine's `Run<E>`.
 */
type Users = OnEither<typeof schema.users>;
type Invites = OnEither<typeof schema.invites>;
type TwoFactor = OnEither<typeof schema.twoFactor>;
type RecoveryCodes = OnEither<typeof schema.recoveryCodes>;
type Tables = EitherTables<typeof schema.tables>;

/** The owners of these accounts, first owner first (operators' pages name one per account). */
const ownersOf = (u: Users, accountIds: string[]) => and(inArray(u.accountId, accountIds), eq(u.role, "owner"));
const memberOrder = (u: Users) => [asc(u.createdAt), asc(u.id)];

/** The first owner's email of each account, from rows in memberOrder. */
const firstEmailByAccount = (rows: { accountId: string | null; email: string }[]) => {
  const emails = new Map<string, string>();
  for (const r of rows) if (r.accountId && !emails.has(r.accountId)) emails.set(r.accountId, r.email);
  return emails;
};

/** An invitation still waiting to be accepted. */
const pendingInvite = (i: Invites, now: number) => gt(i.expiresAt, now);
const inviteOfAccount = (i: Invites, accountId: string, inviteId: string) => and(eq(i.accountId, accountId), eq(i.id, inviteId));
const pendingInviteByToken = (i: Invites, tokenHash: string, now: number) => and(eq(i.tokenHash, tokenHash), pendingInvite(i, now));

/** A code's step later than any taken before, of an enabled second factor (takeStep). */
const laterStep = (f: TwoFactor, userId: string, step: number) => and(eq(f.userId, userId), isNotNull(f.enabledAt), lt(f.lastStep, step));
/** An enrolment still waiting for its first code. */
const waitingTwoFactor = (f: TwoFactor, userId: string) => and(eq(f.userId, userId), isNull(f.enabledAt));
const unusedCode = (r: RecoveryCodes, userId: string, codeHash: string) => and(eq(r.userId, userId), eq(r.codeHash, codeHash), isNull(r.usedAt));

/** A user joined with their second factor's `enabledAt`, as a Member. */
const memberOf = ({ user, enabledAt }: { user: UserRow; enabledAt: number | null }): Member => ({ ...user, twoFactor: enabledAt !== null });

/** A session joined with its user, team and second factor's `enabledAt`, as every page reads it. */
const sessionOf = ({ enabledAt, ...row }: Omit<SessionWithUser, "twoFactor"> & { enabledAt: number | null }): SessionWithUser => ({ ...row, twoFactor: enabledAt !== null });

/** The methods of several statements, each one transaction outside tx() too, on the engine's `tx`. */
export const atomicOps = (tx: UserStore["tx"]) =>
  Object.fromEntries(SEVERAL_STATEMENTS.map((name) => [name, (...args: never[]) => tx((t) => (t[name] as (...a: never[]) => Promise<unknown>)(...args))])) as Pick<
    UserOps,
    (typeof SEVERAL_STATEMENTS)[number]
  >;

/** The throttle's writes of a decision (updateThrottles): the rows it saves, the keys it forgets. */
export const throttleStatements = <E extends Dialect>(db: Db<E>, { loginThrottle }: Tables) => ({
  byKeys: (keys: string[]) => db.select().from(loginThrottle).where(inArray(loginThrottle.key, keys)).orderBy(asc(loginThrottle.key)),
  save: (row: ThrottleRow) => db.insert(loginThrottle).values(row).onConflictDoUpdate({ target: loginThrottle.key, set: row }),
  clear: (keys: string[]) => db.delete(loginThrottle).where(inArray(loginThrottle.key, keys)),
});

/**
 * UserOps on either engine: `db` is the store or the transaction's handle, `run` the engine's way
 * of running a statement. `teamForUpdate` is the one read that locks (Run.forUpdate).
 */
export function userOps<E extends Dialect>(db: Db<E>, run: Run<E>, t: Tables): UserOps {
  const { users, teams, sessions, invites, twoFactor, recoveryCodes, signInChallenges, flashMessages } = t;
  /** A conditional UPDATE or DELETE … RETURNING: whether it took a row. */
  const took = async (statement: Parameters<typeof run.all>[0]) => (await run.all(statement)).length > 0;
  return {
    userByEmail: (email) => run.one(db.select().from(users).where(eq(users.email, email))),
    userById: (id) => run.one(db.select().from(users).where(eq(users.id, id))),
    ownerEmails: async (accountIds) =>
      accountIds.length === 0
        ? new Map()
        : firstEmailByAccount(await run.all(db.select({ accountId: users.accountId, email: users.email }).from(users).where(ownersOf(users, accountIds)).orderBy(...memberOrder(users)))),
    insertUser: (row) => run.done(db.insert(users).values(row)),
    insertTeam: (row) => run.done(db.insert(teams).values(row)),
    teamForUpdate: (accountId) => run.one(run.forUpdate(db.select().from(teams).where(eq(teams.accountId, accountId)))),
    setRequireTwoFactor: (accountId, required) => run.done(db.update(teams).set({ requireTwoFactor: required }).where(eq(teams.accountId, accountId))),
    members: async (accountId) =>
      (
        await run.all(
          db
            .select({ user: users, enabledAt: twoFactor.enabledAt })
            .from(users)
            .leftJoin(twoFactor, eq(twoFactor.userId, users.id))
            .where(eq(users.accountId, accountId))
            .orderBy(...memberOrder(users)),
        )
      ).map(memberOf),
    setRole: (userId, role) => run.done(db.update(users).set({ role }).where(eq(users.id, userId))),
    endSessionsOf: (userId) => run.done(db.delete(sessions).where(eq(sessions.userId, userId))),
    deleteUser: async (userId) => {
      await run.done(db.delete(sessions).where(eq(sessions.userId, userId)));
      await run.done(db.delete(users).where(eq(users.id, userId)));
    },

    insertSession: async (row) => {
      await run.done(db.delete(sessions).where(lte(sessions.expiresAt, row.createdAt)));
      await run.done(db.insert(sessions).values(row));
    },
    sessionWithUser: async (idHash) => {
      const row = await run.one(
        db
          .select({ session: sessions, user: users, team: teams, enabledAt: twoFactor.enabledAt })
          .from(sessions)
          .innerJoin(users, eq(users.id, sessions.userId))
          .leftJoin(teams, eq(teams.accountId, users.accountId))
          .leftJoin(twoFactor, eq(twoFactor.userId, users.id))
          .where(eq(sessions.idHash, idHash)),
      );
      return row && sessionOf(row);
    },
    deleteSession: (idHash) => run.done(db.delete(sessions).where(eq(sessions.idHash, idHash))),
    markFresh: (idHash, at) => run.done(db.update(sessions).set({ freshAt: at }).where(eq(sessions.idHash, idHash))),

    putInvite: async (row, now) => {
      await run.done(db.delete(invites).where(lte(invites.expiresAt, now)));
      const { id: _id, accountId: _a, email: _e, ...renewed } = row;
      await run.done(db.insert(invites).values(row).onConflictDoUpdate({ target: [invites.accountId, invites.email], set: renewed }));
    },
    invitesOf: (accountId, now) => run.all(db.select().from(invites).where(and(eq(invites.accountId, accountId), pendingInvite(invites, now))).orderBy(asc(invites.createdAt), asc(invites.id))),
    inviteByToken: (tokenHash, now) => run.one(db.select().from(invites).where(pendingInviteByToken(invites, tokenHash, now))),
    takeInvite: (tokenHash, now) => run.one(db.delete(invites).where(pendingInviteByToken(invites, tokenHash, now)).returning()),
    deleteInvite: (accountId, inviteId) => took(db.delete(invites).where(inviteOfAccount(invites, accountId, inviteId)).returning({ id: invites.id })),

    twoFactorOf: (userId) => run.one(db.select().from(twoFactor).where(eq(twoFactor.userId, userId))),
    startTwoFactor: (row) => {
      const { userId: _u, ...fresh } = row;
      return run.done(db.insert(twoFactor).values(row).onConflictDoUpdate({ target: twoFactor.userId, set: fresh, setWhere: waitingTwoFactor(twoFactor, row.userId) }));
    },
    enableTwoFactor: (userId, step, at) => took(db.update(twoFactor).set({ enabledAt: at, lastStep: step }).where(waitingTwoFactor(twoFactor, userId)).returning({ userId: twoFactor.userId })),
    takeStep: (userId, step) => took(db.update(twoFactor).set({ lastStep: step }).where(laterStep(twoFactor, userId, step)).returning({ userId: twoFactor.userId })),
    deleteTwoFactor: async (userId) => {
      await run.done(db.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId)));
      await run.done(db.delete(twoFactor).where(eq(twoFactor.userId, userId)));
    },
    replaceRecoveryCodes: async (userId, codeHashes) => {
      await run.done(db.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId)));
      if (codeHashes.length > 0) await run.done(db.insert(recoveryCodes).values(codeHashes.map((codeHash) => ({ userId, codeHash, usedAt: null }))));
    },
    useRecoveryCode: (userId, codeHash, at) => took(db.update(recoveryCodes).set({ usedAt: at }).where(unusedCode(recoveryCodes, userId, codeHash)).returning({ userId: recoveryCodes.userId })),
    recoveryCodesLeft: async (userId) =>
      (await run.one(db.select({ n: count() }).from(recoveryCodes).where(and(eq(recoveryCodes.userId, userId), isNull(recoveryCodes.usedAt)))))?.n ?? 0,

    insertChallenge: async (row, now) => {
      await run.done(db.delete(signInChallenges).where(lte(signInChallenges.expiresAt, now)));
      await run.done(db.insert(signInChallenges).values(row));
    },
    challenge: (idHash) => run.one(db.select().from(signInChallenges).where(eq(signInChallenges.idHash, idHash))),
    deleteChallenge: (idHash) => run.done(db.delete(signInChallenges).where(eq(signInChallenges.idHash, idHash))),

    putFlash: async (row, now) => {
      await run.done(db.delete(flashMessages).where(lte(flashMessages.expiresAt, now)));
      await run.done(db.insert(flashMessages).values(row).onConflictDoUpdate({ target: flashMessages.sessionIdHash, set: row }));
    },
    takeFlash: (sessionIdHash) => run.one(db.delete(flashMessages).where(eq(flashMessages.sessionIdHash, sessionIdHash)).returning()),
  };
}
