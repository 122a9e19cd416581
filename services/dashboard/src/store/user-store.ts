import type { AccountRole, FlashRow, InviteRow, SessionRow, SignInChallengeRow, TeamRow, ThrottleRow, TwoFactorRow, UserRow } from "./schema.ts";

/** The dashboard's store as its users see it, whichever engine holds it; open-user-store.ts opens it. */

/** A session with everything every page needs about its person: the user, their team, whether they have a second factor. */
export type SessionWithUser = { session: SessionRow; user: UserRow; team: TeamRow | null; twoFactor: boolean };
/** A member of a team as the team page lists them. */
export type Member = UserRow & { twoFactor: boolean };
/** What a throttle decision writes: rows to save, keys to forget, and what the caller learns. */
export type ThrottleChange<T> = { save: ThrottleRow[]; clear: string[]; result: T };

/**
 * Users and their teams, sessions, second factors, invitations, the sign-in throttle and the
 * one-shot messages, the same on SQLite and PostgreSQL (docs/conventions.md, "One repository, two
 * engines"). Nothing a later request needs is kept in a process's memory, so any dashboard replica
 * can serve it (docs/dashboard.md, "Replicas"). Inside tx() the statements go through its handle.
 */
export interface UserOps {
  userByEmail(email: string): Promise<UserRow | undefined>;
  userById(id: string): Promise<UserRow | undefined>;
  /** The first owner's email of each account (operators' pages), by account id. */
  ownerEmails(accountIds: string[]): Promise<Map<string, string>>;
  /** Throws what isUniqueViolation recognises when the email is taken. */
  insertUser(row: UserRow): Promise<void>;
  /** Throws what isUniqueViolation recognises when the account already has its team. */
  insertTeam(row: TeamRow): Promise<void>;
  /**
   * The team, its row held until the transaction ends: every change of a team's members or settings
   * starts here, so two replicas changing one team run one after the other (the last owner stays).
   * PostgreSQL: SELECT … FOR UPDATE; SQLite: the transaction already holds the file's write lock.
   */
  teamForUpdate(accountId: string): Promise<TeamRow | undefined>;
  setRequireTwoFactor(accountId: string, required: boolean): Promise<void>;
  /** The team's members, oldest first, each with whether they have a second factor. */
  members(accountId: string): Promise<Member[]>;
  setRole(userId: string, role: AccountRole): Promise<void>;
  /** Ends every session of the user (their one-shot messages go with them): the next request of any replica finds none. */
  endSessionsOf(userId: string): Promise<void>;
  /** The user and everything of theirs: sessions, second factor, recovery codes, sign-ins halfway. */
  deleteUser(userId: string): Promise<void>;

  /** Also deletes the sessions (and their messages) that have expired by `row.createdAt`. */
  insertSession(row: SessionRow): Promise<void>;
  sessionWithUser(idHash: string): Promise<SessionWithUser | undefined>;
  deleteSession(idHash: string): Promise<void>;
  /** The session's person proved who they are again at `at` (a sensitive action's confirmation). */
  markFresh(idHash: string, at: number): Promise<void>;

  /** A new invitation, replacing the account's pending one for the same email; expired ones of any account go. */
  putInvite(row: InviteRow, now: number): Promise<void>;
  /** The account's pending invitations, oldest first. */
  invitesOf(accountId: string, now: number): Promise<InviteRow[]>;
  /** The invitation a link's token opens, if it is still pending. */
  inviteByToken(tokenHash: string, now: number): Promise<InviteRow | undefined>;
  /** Deletes and returns the invitation if still pending: exactly one acceptance gets it. */
  takeInvite(tokenHash: string, now: number): Promise<InviteRow | undefined>;
  /** Withdraws a pending invitation of the account; false when there is none by that id. */
  deleteInvite(accountId: string, inviteId: string): Promise<boolean>;

  twoFactorOf(userId: string): Promise<TwoFactorRow | undefined>;
  /** A new secret waiting for its first code, replacing an earlier unconfirmed one; never one already enabled. */
  startTwoFactor(row: TwoFactorRow): Promise<void>;
  /** Enables the waiting second factor with its first code's step; false when there is none waiting. */
  enableTwoFactor(userId: string, step: number, at: number): Promise<boolean>;
  /**
   * Takes a code's time step: true only when it is later than every step taken before, so a code
   * (or an older one) is accepted once, whichever replica checks it — one conditional UPDATE.
   */
  takeStep(userId: string, step: number): Promise<boolean>;
  /** Removes the second factor and its recovery codes. */
  deleteTwoFactor(userId: string): Promise<void>;
  replaceRecoveryCodes(userId: string, codeHashes: string[]): Promise<void>;
  /** Marks the code used if it is the user's and unused: true exactly once per code (one conditional UPDATE). */
  useRecoveryCode(userId: string, codeHash: string, at: number): Promise<boolean>;
  recoveryCodesLeft(userId: string): Promise<number>;

  /** Also deletes the sign-ins halfway that have expired by `now`. */
  insertChallenge(row: SignInChallengeRow, now: number): Promise<void>;
  challenge(idHash: string): Promise<SignInChallengeRow | undefined>;
  deleteChallenge(idHash: string): Promise<void>;

  /** The session's one pending message, replacing an earlier one; expired messages of any session go. */
  putFlash(row: FlashRow, now: number): Promise<void>;
  /** Deletes and returns the session's pending message: one read shows it, whichever replica reads. */
  takeFlash(sessionIdHash: string): Promise<FlashRow | undefined>;
}

/** The methods of several statements: outside tx() each is still one transaction, on either engine. */
export const SEVERAL_STATEMENTS = ["deleteUser", "insertSession", "putInvite", "deleteTwoFactor", "replaceRecoveryCodes", "insertChallenge", "putFlash"] as const satisfies (keyof UserOps)[];

export interface UserStore extends UserOps {
  /** One atomic unit; the body uses `t`, never the store, and awaits nothing but `t`'s methods. */
  tx<T>(fn: (t: UserOps) => Promise<T>): Promise<T>;
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
 * so causes are followed), SQLITE_CONSTRAINT_UNIQUE (or _PRIMARYKEY) on SQLite. Recognised by code, never by message.
 */
export function isUniqueViolation(e: unknown): boolean {
  let err = e;
  for (let depth = 0; depth < 4 && err; depth++, err = (err as { cause?: unknown }).cause) {
    const { code, errno } = err as { code?: unknown; errno?: unknown };
    if (errno === "23505" || code === "23505" || code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY") return true;
  }
  return false;
}
