import { and, asc, eq, gt, inArray, isNotNull, isNull, lt, lte } from "drizzle-orm";
import type { OnEither } from "@payaccept/platform/table";
import type * as tables from "./schema.ts";
import type { UserRow } from "./schema.ts";
import type { Member, SessionWithUser } from "./user-store.ts";

/** The terms both engines' user statements share, on either schema's columns. */
type Users = OnEither<typeof tables.users>;
type Invites = OnEither<typeof tables.invites>;
type TwoFactor = OnEither<typeof tables.twoFactor>;
type RecoveryCodes = OnEither<typeof tables.recoveryCodes>;

/** The owners of these accounts, first owner first (operators' pages name one per account). */
export const ownersOf = (u: Users, accountIds: string[]) => and(inArray(u.accountId, accountIds), eq(u.role, "owner"));
export const memberOrder = (u: Users) => [asc(u.createdAt), asc(u.id)];

/** The first owner's email of each account, from rows in memberOrder. */
export const firstEmailByAccount = (rows: { accountId: string | null; email: string }[]) => {
  const emails = new Map<string, string>();
  for (const r of rows) if (r.accountId && !emails.has(r.accountId)) emails.set(r.accountId, r.email);
  return emails;
};

/** An invitation still waiting to be accepted. */
export const pendingInvite = (i: Invites, now: number) => gt(i.expiresAt, now);
export const inviteOfAccount = (i: Invites, accountId: string, inviteId: string) => and(eq(i.accountId, accountId), eq(i.id, inviteId));
export const pendingInviteByToken = (i: Invites, tokenHash: string, now: number) => and(eq(i.tokenHash, tokenHash), pendingInvite(i, now));
export const expiredInvites = (i: Invites, now: number) => lte(i.expiresAt, now);

/** A code's step later than any taken before, of an enabled second factor (takeStep). */
export const laterStep = (f: TwoFactor, userId: string, step: number) => and(eq(f.userId, userId), isNotNull(f.enabledAt), lt(f.lastStep, step));
/** An enrolment still waiting for its first code. */
export const waitingTwoFactor = (f: TwoFactor, userId: string) => and(eq(f.userId, userId), isNull(f.enabledAt));
export const unusedCode = (r: RecoveryCodes, userId: string, codeHash: string) => and(eq(r.userId, userId), eq(r.codeHash, codeHash), isNull(r.usedAt));
export const unusedCodesOf = (r: RecoveryCodes, userId: string) => and(eq(r.userId, userId), isNull(r.usedAt));

/** A user joined with their second factor's `enabledAt`, as a Member. */
export const memberOf = ({ user, enabledAt }: { user: UserRow; enabledAt: number | null }): Member => ({ ...user, twoFactor: enabledAt !== null });

/** A session joined with its user, team and second factor's `enabledAt`, as every page reads it. */
export const sessionOf = ({ enabledAt, ...row }: Omit<SessionWithUser, "twoFactor"> & { enabledAt: number | null }): SessionWithUser => ({ ...row, twoFactor: enabledAt !== null });
