import { DomainError, rpcs } from "@payaccept/contracts";
import { sqliteCode, type Logger } from "@payaccept/platform";
import type { UserRow } from "../store/schema.ts";
import type { UserStore } from "../store/user-store.ts";
import type { Backend } from "../web/backend.ts";
import type { KeyedQueue } from "./keyed-queue.ts";
import { hashPassword, type PasswordVerifier } from "./passwords.ts";
import { addressThrottleKey, ADDRESS_POLICY, afterFailure, emailThrottleKey, EMAIL_POLICY, lockedUntil } from "./throttle.ts";

export type UserDeps = {
  users: UserStore;
  /** The directory service, over NATS: it owns the accounts users belong to. */
  backend: Backend;
  passwords: PasswordVerifier;
  attempts: KeyedQueue;
  log: Logger;
  now: () => number;
};

export type SignInResult =
  | { kind: "signedIn"; user: UserRow }
  | { kind: "invalid" }
  /** Too many failures for this email or this address; nothing was checked. */
  | { kind: "locked"; retryAfterMs: number };

/**
 * A merchant user: with no accountId a new account that will own shops (sign-up), else the user of
 * an existing account that has none yet (admin CLI, the launcher's demo shop). Input already validated.
 */
export async function signUp(deps: UserDeps, email: string, password: string, accountId?: string): Promise<UserRow> {
  const passwordHash = await hashPassword(password);
  if (accountId) await deps.backend.call(rpcs.directory.getAccount, { accountId });
  // Checked first so that a taken email does not leave a new empty account behind (a rare race
  // still can: an account with no user and no shop, which nothing ever shows or bills).
  else if (deps.users.userByEmail(email)) throw emailTaken();
  const user: UserRow = {
    id: Bun.randomUUIDv7(),
    accountId: accountId ?? (await deps.backend.call(rpcs.directory.createAccount, {})).accountId,
    email,
    passwordHash,
    role: "merchant",
    createdAt: deps.now(),
  };
  insertUnique(() =>
    deps.users.transaction(() => {
      if (accountId && deps.users.merchantEmail(accountId)) throw new DomainError("ACCOUNT_HAS_USER");
      deps.users.insertUser(user);
    }),
  );
  deps.log.info({ userId: user.id, accountId: user.accountId }, "merchant signed up");
  return user;
}

/** A platform operator (admin CLI): no account of its own; sees every shop. */
export async function createOperator(deps: UserDeps, email: string, password: string): Promise<UserRow> {
  const user: UserRow = { id: Bun.randomUUIDv7(), accountId: null, email, passwordHash: await hashPassword(password), role: "operator", createdAt: deps.now() };
  insertUnique(() => deps.users.insertUser(user));
  deps.log.info({ userId: user.id }, "operator created");
  return user;
}

/**
 * Checks a password under the throttle: a locked email or address is refused without looking at
 * the password; every failure, for unknown emails too, counts against both. Attempts on one email
 * or address run one at a time, so a burst of parallel guesses is counted like a sequence.
 */
export function signIn(deps: UserDeps, email: string, password: string, address: string): Promise<SignInResult> {
  const keys = [emailThrottleKey(email), addressThrottleKey(address)];
  return deps.attempts.run(keys, async () => {
    const now = deps.now();
    const until = Math.max(...keys.map((k) => lockedUntil(deps.users.throttle(k), now)));
    if (until > 0) return { kind: "locked", retryAfterMs: until - now };
    const user = deps.users.userByEmail(email);
    if (await deps.passwords.verify(password, user?.passwordHash)) {
      // The address keeps its count: one good password must not wash out a spray of guesses.
      deps.users.clearThrottle(keys[0]!);
      deps.log.info({ userId: user!.id, role: user!.role }, "signed in");
      return { kind: "signedIn", user: user! };
    }
    const failedAt = deps.now();
    const [emailRow, addressRow] = [
      afterFailure(deps.users.throttle(keys[0]!), keys[0]!, EMAIL_POLICY, failedAt),
      afterFailure(deps.users.throttle(keys[1]!), keys[1]!, ADDRESS_POLICY, failedAt),
    ];
    deps.users.transaction(() => {
      deps.users.saveThrottle(emailRow);
      deps.users.saveThrottle(addressRow);
    });
    deps.log.warn({ known: user !== undefined, emailFailures: emailRow.failures, addressFailures: addressRow.failures }, "sign-in failed");
    return { kind: "invalid" };
  });
}

const emailTaken = () => new DomainError("EMAIL_TAKEN");

function insertUnique(insert: () => void): void {
  try {
    insert();
  } catch (e) {
    // The email is the users table's only UNIQUE key besides the fresh ids.
    if (sqliteCode(e) === "SQLITE_CONSTRAINT_UNIQUE") throw emailTaken();
    throw e;
  }
}
