import { DomainError, rpcs } from "@payaccept/contracts";
import type { Logger } from "@payaccept/platform";
import type { UserRow } from "../store/schema.ts";
import { isUniqueViolation, type UserStore } from "../store/user-store.ts";
import type { Backend } from "../web/backend.ts";
import { hashPassword, type PasswordVerifier } from "./passwords.ts";
import { addressThrottleKey, ADDRESS_POLICY, claimAttempt, emailThrottleKey, EMAIL_POLICY, givenBack } from "./throttle.ts";

export type UserDeps = {
  users: UserStore;
  /** The directory service, over NATS: it owns the accounts users belong to. */
  backend: Backend;
  passwords: PasswordVerifier;
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
  else if (await deps.users.userByEmail(email)) throw emailTaken();
  const user: UserRow = {
    id: Bun.randomUUIDv7(),
    accountId: accountId ?? (await deps.backend.call(rpcs.directory.createAccount, {})).accountId,
    email,
    passwordHash,
    role: "merchant",
    createdAt: deps.now(),
  };
  await insertUnique(deps, user);
  deps.log.info({ userId: user.id, accountId: user.accountId }, "merchant signed up");
  return user;
}

/** A platform operator (admin CLI): no account of its own; sees every shop. */
export async function createOperator(deps: UserDeps, email: string, password: string): Promise<UserRow> {
  const user: UserRow = { id: Bun.randomUUIDv7(), accountId: null, email, passwordHash: await hashPassword(password), role: "operator", createdAt: deps.now() };
  await insertUnique(deps, user);
  deps.log.info({ userId: user.id }, "operator created");
  return user;
}

/**
 * Checks a password under the throttle: a locked email or address is refused without looking at
 * the password; every attempt, for unknown emails too, counts against both from the moment it
 * starts (throttle.ts, claimAttempt), so a burst of parallel guesses spread over replicas is
 * counted like a sequence. A right password clears the email's count and gives its own count
 * back to the address (one good password must not wash out a spray of guesses there).
 */
export async function signIn(deps: UserDeps, email: string, password: string, address: string): Promise<SignInResult> {
  const keys = [emailThrottleKey(email), addressThrottleKey(address)] as const;
  const claimedAt = deps.now();
  const claim = await deps.users.updateThrottles([...keys], (rows) =>
    claimAttempt(rows, [[keys[0], EMAIL_POLICY], [keys[1], ADDRESS_POLICY]], claimedAt),
  );
  if (claim.kind === "locked") return { kind: "locked", retryAfterMs: claim.until - claimedAt };
  const user = await deps.users.userByEmail(email);
  if (await deps.passwords.verify(password, user?.passwordHash)) {
    await deps.users.updateThrottles([...keys], ([, address]) => {
      const back = givenBack(keys[1], address, claim.before[1], claimedAt);
      return { ...back, clear: [keys[0], ...back.clear] };
    });
    deps.log.info({ userId: user!.id, role: user!.role }, "signed in");
    return { kind: "signedIn", user: user! };
  }
  const [emailRow, addressRow] = claim.after;
  deps.log.warn({ known: user !== undefined, emailFailures: emailRow!.failures, addressFailures: addressRow!.failures }, "sign-in failed");
  return { kind: "invalid" };
}

const emailTaken = () => new DomainError("EMAIL_TAKEN");

/** The users table's UNIQUE keys decide, whichever replica inserts: one user per email, one merchant per account. */
async function insertUnique(deps: UserDeps, user: UserRow): Promise<void> {
  try {
    await deps.users.insertUser(user);
  } catch (e) {
    if (!isUniqueViolation(e)) throw e;
    if (await deps.users.userByEmail(user.email)) throw emailTaken();
    throw new DomainError("ACCOUNT_HAS_USER");
  }
}
