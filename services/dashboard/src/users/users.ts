import { DomainError, rpcs, type AuditActor } from "@payaccept/contracts";
import type { Logger } from "@payaccept/platform";
import type { UserRow } from "../store/schema.ts";
import { isUniqueViolation, type UserOps, type UserStore } from "../store/user-store.ts";
import type { Backend } from "../web/backend.ts";
import { personActor, recordTeamFact, type Origin, type TeamAudit } from "../team/audit.ts";
import type { Passwords } from "./passwords.ts";
import { addressThrottleKey, ADDRESS_POLICY, claimAttempt, emailThrottleKey, EMAIL_POLICY, givenBack } from "./throttle.ts";

export type UserDeps = {
  users: UserStore;
  /** The directory service, over NATS: it owns the accounts users belong to. */
  backend: Backend;
  passwords: Passwords;
  log: Logger;
  audit: TeamAudit;
  now: () => number;
};

/**
 * The owner of a new team: with no accountId a new account that will own shops (sign-up), else an
 * existing account that has no team yet (admin CLI user:create-merchant, the launcher's demo shop).
 * The team and its owner are made in one transaction. Input already validated.
 */
export async function signUp(deps: UserDeps, email: string, password: string, accountId?: string): Promise<UserRow> {
  const passwordHash = await deps.passwords.hash(password);
  if (accountId) await deps.backend.call(rpcs.directory.getAccount, { accountId });
  // Checked first so that a taken email does not leave a new empty account behind (a rare race
  // still can: an account with no user and no shop, which nothing ever shows or bills).
  else if (await deps.users.userByEmail(email)) throw emailTaken();
  const now = deps.now();
  const user: UserRow = {
    id: Bun.randomUUIDv7(),
    accountId: accountId ?? (await deps.backend.call(rpcs.directory.createAccount, {})).accountId,
    email,
    passwordHash,
    role: "owner",
    createdAt: now,
  };
  await insertUnique(deps, user, (t) => t.insertTeam({ accountId: user.accountId!, requireTwoFactor: false, createdAt: now }));
  deps.log.info({ userId: user.id, accountId: user.accountId }, "account owner signed up");
  return user;
}

/** A platform operator (admin CLI): no account of its own; sees every shop. */
export async function createOperator(deps: UserDeps, email: string, password: string): Promise<UserRow> {
  const user: UserRow = { id: Bun.randomUUIDv7(), accountId: null, email, passwordHash: await deps.passwords.hash(password), role: "operator", createdAt: deps.now() };
  await insertUnique(deps, user);
  deps.log.info({ userId: user.id }, "operator created");
  return user;
}

/**
 * An attempt under the throttle: refused unchecked while locked, else what the check found
 * (invalid: wrong; `locks`: this failure locked the subject).
 */
export type Attempt<T> = { kind: "ok"; value: T } | { kind: "invalid"; locks: boolean } | { kind: "locked"; retryAfterMs: number };

/**
 * Runs `check` (a password, a code) under the throttle of its subject (an email, a user's second
 * factor) and of the client's address: a locked key is refused without checking; every attempt
 * counts against both from the moment it starts (throttle.ts, claimAttempt), so a burst of
 * parallel guesses spread over replicas is counted like a sequence. A right answer clears the
 * subject's count and gives its own count back to the address (one good password must not wash
 * out a spray of guesses there).
 */
export async function throttledAttempt<T>(deps: UserDeps, subjectKey: string, address: string, check: () => Promise<T | undefined>): Promise<Attempt<T>> {
  const keys = [subjectKey, addressThrottleKey(address)] as const;
  const claimedAt = deps.now();
  const claim = await deps.users.updateThrottles([...keys], (rows) =>
    claimAttempt(rows, [[keys[0], EMAIL_POLICY], [keys[1], ADDRESS_POLICY]], claimedAt),
  );
  if (claim.kind === "locked") return { kind: "locked", retryAfterMs: claim.until - claimedAt };
  const value = await check();
  if (value === undefined) {
    const [subjectRow, addressRow] = claim.after;
    deps.log.warn({ subject: keys[0].slice(0, keys[0].indexOf(":")), subjectFailures: subjectRow!.failures, addressFailures: addressRow!.failures }, "attempt failed");
    return { kind: "invalid", locks: subjectRow!.lockedUntil > claimedAt };
  }
  await deps.users.updateThrottles([...keys], ([, addressRow]) => {
    const back = givenBack(keys[1], addressRow, claim.before[1], claimedAt);
    return { ...back, clear: [keys[0], ...back.clear] };
  });
  return { kind: "ok", value };
}

/**
 * A password checked under the throttle of its email (an unknown email takes as long: the decoy
 * hash). A failure is recorded in the audit log in the name typed (recordFailure): the account's
 * when the email is a member's, the platform's (accountId null) when it is nobody's.
 */
export async function signIn(deps: UserDeps, email: string, password: string, address: string, from: Origin): Promise<Attempt<UserRow>> {
  const user = await deps.users.userByEmail(email);
  const result = await throttledAttempt(deps, emailThrottleKey(email), address, async () => ((await deps.passwords.verify(password, user?.passwordHash)) ? user : undefined));
  if (result.kind === "ok") deps.log.info({ userId: result.value.id, role: result.value.role }, "password accepted");
  recordFailure(deps, result, "password", personActor(user ?? { email }, from), user?.accountId ?? null);
  return result;
}

/**
 * A failed sign-in (a password, a second factor's code) goes into the audit log, and the failure
 * that locks it once more as the lock: someone may be guessing. The throttle bounds how many
 * entries a guesser can make (five per lock of an email or a factor, the lock doubling each time).
 */
export function recordFailure(deps: UserDeps, attempt: Attempt<unknown>, factor: "password" | "code", actor: AuditActor, accountId: string | null): void {
  if (attempt.kind !== "invalid") return;
  recordTeamFact(deps, "member.sign_in_failed", actor, accountId, { after: { factor } });
  if (attempt.locks) recordTeamFact(deps, "member.sign_in_locked", actor, accountId, { after: { factor } });
}

/** A member signed in (their password, and their second factor when they have one). */
export function recordSignIn(deps: UserDeps, user: UserRow, from: Origin, factor: "password" | "totp" | "recovery"): void {
  recordTeamFact(deps, "member.signed_in", personActor(user, from), user.accountId, { after: { factor } });
}

const emailTaken = () => new DomainError("EMAIL_TAKEN");

/**
 * The users table's UNIQUE email and the teams' primary key decide, whichever replica inserts: one
 * user per email, one team (made with its first owner) per account. `withTeam` runs in the same transaction.
 */
async function insertUnique(deps: UserDeps, user: UserRow, withTeam?: (t: UserOps) => Promise<void>): Promise<void> {
  try {
    await deps.users.tx(async (t) => {
      await withTeam?.(t);
      await t.insertUser(user);
    });
  } catch (e) {
    if (!isUniqueViolation(e)) throw e;
    if (await deps.users.userByEmail(user.email)) throw emailTaken();
    throw new DomainError("ACCOUNT_HAS_USER");
  }
}
