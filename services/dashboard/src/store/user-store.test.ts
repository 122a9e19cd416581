import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { DomainError } from "@payaccept/contracts";
import { createLogger, openPgStore, openStore, sha256Hex, type AuditFields } from "@payaccept/platform";
import { ENGINES, storesPerFile, type Engine } from "../../../../tests/harness/engines.ts";
import { migrationsBefore } from "../../../../tests/harness/migrations.ts";
import { acceptInvite, changeRole, type TeamDeps } from "../team/members.ts";
import { MIN_PASSWORD_MEMORY_KIB, Passwords } from "../users/passwords.ts";
import { ADDRESS_POLICY, claimAttempt, EMAIL_POLICY } from "../users/throttle.ts";
import { Flash } from "../web/flash.ts";
import type { AccountRole, UserRow } from "./schema.ts";
import { schema as pgSchema } from "./schema.pg.ts";
import { schema as sqliteSchema } from "./schema.sqlite.ts";
import { openUserStore } from "./open-user-store.ts";
import { isUniqueViolation, type UserStore } from "./user-store.ts";

const stores = storesPerFile();
const opened: UserStore[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});

/**
 * Two stores on one database, as two dashboard replicas on two hosts have. Two bun:sqlite
 * connections in one process would block each other's thread on the file lock, so on SQLite one
 * store serves both (replicas are processes there: tests/dashboard-replicas.test.ts).
 */
async function replicas(engine: Engine): Promise<[UserStore, UserStore]> {
  const choice = await stores.next(engine, "dashboard.db");
  const first = await openUserStore(choice);
  const second = engine === "sqlite" ? first : await openUserStore(choice);
  opened.push(...new Set([first, second]));
  return [first, second];
}

const user = (over: Partial<UserRow> = {}): UserRow => ({
  id: Bun.randomUUIDv7(),
  accountId: Bun.randomUUIDv7(),
  email: `${Bun.randomUUIDv7()}@example.com`,
  passwordHash: "x",
  role: "owner",
  createdAt: 1,
  ...over,
});

/** A team with its members (the first of `roles` first), as sign-up and invitations make them. */
async function teamOf(store: UserStore, roles: AccountRole[]): Promise<UserRow[]> {
  const accountId = Bun.randomUUIDv7();
  await store.insertTeam({ accountId, requireTwoFactor: false, createdAt: 1 });
  const members = roles.map((role, i) => user({ accountId, role, createdAt: i + 1 }));
  for (const m of members) await store.insertUser(m);
  return members;
}

/** What the team functions recorded in the audit log (after their transactions committed). */
const recorded: AuditFields[] = [];
const passwords = new Passwords({ memoryKib: MIN_PASSWORD_MEMORY_KIB, passes: 2 });
const teamDeps = (users: UserStore, now = 1_000): TeamDeps => ({
  users,
  passwords,
  log: createLogger("test", "silent"),
  audit: { record: (f) => recorded.push(f) },
  now: () => now,
  inviteTtlMs: 60_000,
  publicUrl: "http://dash.test",
});
const from = { ip: "203.0.113.7", userAgent: "Firefox" };

async function refusal(fn: () => Promise<unknown>): Promise<unknown> {
  try {
    await fn();
  } catch (e) {
    return e;
  }
  throw new Error("expected a refusal");
}

describe.each(ENGINES)("the dashboard's store (%s)", (engine) => {
  test("one user per email and one team per account: the database's unique keys refuse, recognised by code; a team has any number of members", async () => {
    const [a, b] = await replicas(engine);
    const [owner] = await teamOf(a, ["owner", "admin", "viewer"]);
    expect(isUniqueViolation(await refusal(() => b.insertUser(user({ email: owner!.email }))))).toBe(true);
    expect(isUniqueViolation(await refusal(() => b.insertTeam({ accountId: owner!.accountId!, requireTwoFactor: false, createdAt: 2 })))).toBe(true);
    await b.insertUser(user({ accountId: owner!.accountId, role: "owner", createdAt: 99 }));
    expect((await a.members(owner!.accountId!)).map((m) => m.role)).toEqual(["owner", "admin", "viewer", "owner"]);
    expect((await a.ownerEmails([owner!.accountId!])).get(owner!.accountId!)).toBe(owner!.email);
    // Operators have no account: any number of them.
    await b.insertUser(user({ accountId: null, role: "operator" }));
    await b.insertUser(user({ accountId: null, role: "operator" }));
    expect(isUniqueViolation(new Error("UNIQUE constraint failed: users.email"))).toBe(false);
  });

  test("a one-shot message put by one replica is shown once by the other, only on its page, sealed at rest", async () => {
    const [a, b] = await replicas(engine);
    let now = 1_000;
    const [owner] = await teamOf(a, ["owner"]);
    const session = { sessionId: "hash-1", token: "T".repeat(43) };
    await a.insertSession({ idHash: session.sessionId, userId: owner!.id, createdAt: now, expiresAt: now + 3_600_000, freshAt: now });
    const message = { kind: "apiKey", shopId: "s1", apiKey: "pk_test_secretvalue" } as const;
    const [put, take] = [new Flash(a, () => now), new Flash(b, () => now)];
    await put.put(session, "/shops/s1", message);
    const stored = await a.takeFlash(session.sessionId);
    expect(stored!.sealed).not.toContain("pk_test_secretvalue");
    await a.putFlash(stored!, now);
    expect(await take.take({ ...session, token: "U".repeat(43) }, "/shops/s1").catch(() => "unreadable")).toBe("unreadable");
    await put.put(session, "/shops/s1", message);
    expect(await take.take(session, "/shops/s1")).toEqual(message);
    expect(await take.take(session, "/shops/s1")).toBeUndefined();
    // Another page drops it; five minutes later it is gone; a session's end takes its message along.
    await put.put(session, "/shops/s1", message);
    expect(await take.take(session, "/balance")).toBeUndefined();
    expect(await take.take(session, "/shops/s1")).toBeUndefined();
    await put.put(session, "/shops/s1", message);
    now += 5 * 60_000;
    expect(await take.take(session, "/shops/s1")).toBeUndefined();
    await put.put(session, "/shops/s1", message);
    await b.deleteSession(session.sessionId);
    expect(await a.takeFlash(session.sessionId)).toBeUndefined();
  });

  test("ten parallel sign-in attempts on one email through two replicas: five are counted and checked, five refused", async () => {
    const [a, b] = await replicas(engine);
    const keys: [string, typeof EMAIL_POLICY][] = [
      ["email:burst@example.com", EMAIL_POLICY],
      ["ip:203.0.113.1", ADDRESS_POLICY],
    ];
    const claims = await Promise.all(
      Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).updateThrottles(keys.map(([k]) => k), (rows) => claimAttempt(rows, keys, 10_000))),
    );
    expect(claims.map((c) => c.kind).sort()).toEqual([...Array(5).fill("counted"), ...Array(5).fill("locked")]);
    const after = await a.updateThrottles([keys[0]![0]], (rows) => ({ save: [], clear: [], result: rows[0] }));
    expect(after).toMatchObject({ failures: 5, lockedUntil: 10_000 + EMAIL_POLICY.baseLockMs });
  });

  test("two owners demoting each other at once on two replicas: the team's row is held, one of them stays owner", async () => {
    const [a, b] = await replicas(engine);
    const [first, second] = await teamOf(a, ["owner", "owner"]);
    const actor = (u: UserRow) => ({ ...u, accountId: u.accountId!, from });
    const results = await Promise.all([
      changeRole(teamDeps(a), actor(first!), second!.id, "viewer").catch((e: DomainError) => e.reason),
      changeRole(teamDeps(b), actor(second!), first!.id, "viewer").catch((e: DomainError) => e.reason),
    ]);
    expect(results.filter((r) => r === "LAST_OWNER")).toHaveLength(1);
    expect((await a.members(first!.accountId!)).filter((m) => m.role === "owner")).toHaveLength(1);
  });

  test("a role change ends the member's sessions; a removal takes the member, their sessions, second factor and sign-ins halfway", async () => {
    const [a, b] = await replicas(engine);
    const [owner, dev] = await teamOf(a, ["owner", "developer"]);
    const sessionOf = (id: string) => ({ idHash: `s-${id}-${Bun.randomUUIDv7()}`, userId: id, createdAt: 1, expiresAt: 10_000, freshAt: 1 });
    const devSession = sessionOf(dev!.id);
    const ownerSession = sessionOf(owner!.id);
    await a.insertSession(devSession);
    await a.insertSession(ownerSession);
    await changeRole(teamDeps(b), { ...owner!, accountId: owner!.accountId!, from }, dev!.id, "accountant");
    expect(recorded.find((f) => f.action === "member.role_changed" && f.target?.id === dev!.id)).toMatchObject({
      actor: { kind: "member", id: owner!.id, label: owner!.email, role: "owner", ip: "203.0.113.7", userAgent: "Firefox" },
      accountId: owner!.accountId,
      before: { email: dev!.email, role: "developer" },
      after: { email: dev!.email, role: "accountant" },
    });
    expect(await a.sessionWithUser(devSession.idHash)).toBeUndefined();
    expect((await a.sessionWithUser(ownerSession.idHash))?.user.role).toBe("owner");
    expect((await a.userById(dev!.id))?.role).toBe("accountant");

    const again = sessionOf(dev!.id);
    await a.insertSession(again);
    await a.startTwoFactor({ userId: dev!.id, secret: "JBSWY3DPEHPK3PXP", enabledAt: null, lastStep: 0, createdAt: 1 });
    await a.insertChallenge({ idHash: "c-1", userId: dev!.id, expiresAt: 10_000 }, 1);
    await b.deleteUser(dev!.id);
    expect(await a.sessionWithUser(again.idHash)).toBeUndefined();
    expect(await a.twoFactorOf(dev!.id)).toBeUndefined();
    expect(await a.challenge("c-1")).toBeUndefined();
    expect((await a.members(owner!.accountId!)).map((m) => m.id)).toEqual([owner!.id]);
  });

  test("an invitation: a new one replaces the pending one of its address, opens once (of two acceptances on two replicas, one user), and expires", async () => {
    const [a, b] = await replicas(engine);
    const [owner] = await teamOf(a, ["owner"]);
    const invite = (token: string, role: AccountRole, createdAt: number) => ({
      id: Bun.randomUUIDv7(),
      accountId: owner!.accountId!,
      email: "new@example.com",
      role,
      tokenHash: sha256Hex(token),
      invitedByEmail: owner!.email,
      createdAt,
      expiresAt: createdAt + 60_000,
    });
    await a.putInvite(invite("first-token", "viewer", 1_000), 1_000);
    await b.putInvite(invite("second-token", "developer", 2_000), 2_000);
    expect(await a.inviteByToken(sha256Hex("first-token"), 2_000)).toBeUndefined();
    expect((await a.invitesOf(owner!.accountId!, 2_000)).map((i) => i.role)).toEqual(["developer"]);

    const accepted = await Promise.all([acceptInvite(teamDeps(a, 3_000), "second-token", "a long password", from), acceptInvite(teamDeps(b, 3_000), "second-token", "a long password", from)].map((p) => p.catch((e: DomainError) => e.reason)));
    expect(accepted.filter((r) => r === "INVITE_NOT_FOUND")).toHaveLength(1);
    const member = accepted.find((r) => typeof r !== "string") as UserRow;
    expect(member).toMatchObject({ email: "new@example.com", role: "developer", accountId: owner!.accountId });
    // One entry for the one acceptance, in the new member's name.
    expect(recorded.filter((f) => f.action === "member.joined" && f.accountId === owner!.accountId)).toEqual([
      expect.objectContaining({ id: `member.joined:${member.id}`, actor: expect.objectContaining({ id: member.id, role: "developer" }), after: expect.objectContaining({ invitedBy: owner!.email }) }),
    ]);
    expect(await a.invitesOf(owner!.accountId!, 3_000)).toEqual([]);

    await a.putInvite({ ...invite("late-token", "viewer", 4_000), email: "late@example.com" }, 4_000);
    expect(await refusal(() => acceptInvite(teamDeps(b, 4_000 + 60_000), "late-token", "a long password", from))).toMatchObject({ reason: "INVITE_NOT_FOUND" });
    expect(await a.deleteInvite(owner!.accountId!, "no-such-invite")).toBe(false);
  });

  test("a second factor's steps are taken once, in order, whichever replica checks; recovery codes are used once", async () => {
    const [a, b] = await replicas(engine);
    const [owner] = await teamOf(a, ["owner"]);
    const id = owner!.id;
    await a.startTwoFactor({ userId: id, secret: "JBSWY3DPEHPK3PXP", enabledAt: null, lastStep: 0, createdAt: 1 });
    expect(await a.takeStep(id, 100)).toBe(false);
    expect(await b.enableTwoFactor(id, 100, 5)).toBe(true);
    expect(await a.enableTwoFactor(id, 100, 5)).toBe(false);
    // An enabled factor is never replaced by a new enrolment.
    await a.startTwoFactor({ userId: id, secret: "KRUGKIDROVUWG2ZA", enabledAt: null, lastStep: 0, createdAt: 6 });
    expect(await a.twoFactorOf(id)).toMatchObject({ secret: "JBSWY3DPEHPK3PXP", enabledAt: 5 });
    // The enrolment's code took step 100: the same step again, or an older one, is refused.
    const takes = await Promise.all([a.takeStep(id, 101), b.takeStep(id, 101), a.takeStep(id, 100)]);
    expect(takes.filter(Boolean)).toHaveLength(1);
    expect(await b.takeStep(id, 102)).toBe(true);

    await a.replaceRecoveryCodes(id, ["h1", "h2"]);
    const uses = await Promise.all([a.useRecoveryCode(id, "h1", 7), b.useRecoveryCode(id, "h1", 7)]);
    expect(uses.filter(Boolean)).toHaveLength(1);
    expect(await a.recoveryCodesLeft(id)).toBe(1);
    expect(await b.useRecoveryCode(id, "h3", 7)).toBe(false);
    const session = { idHash: "s-2fa", userId: id, createdAt: 1, expiresAt: 10_000, freshAt: 1 };
    await a.insertSession(session);
    expect(await b.sessionWithUser(session.idHash)).toMatchObject({ twoFactor: true, team: { accountId: owner!.accountId, requireTwoFactor: false } });
    await b.deleteTwoFactor(id);
    expect(await a.recoveryCodesLeft(id)).toBe(0);
    expect(await a.sessionWithUser(session.idHash)).toMatchObject({ twoFactor: false });
  });

  test("the migration to teams: each account's merchant user becomes the owner of its team; operators stay operators", async () => {
    const choice = await stores.next(engine, "dashboard.db");
    const rows = `
      INSERT INTO users (id, account_id, email, password_hash, role, created_at) VALUES
        ('u-1', 'acc-1', 'one@example.com', 'x', 'merchant', 10),
        ('u-2', 'acc-2', 'two@example.com', 'x', 'merchant', 20),
        ('u-3', NULL, 'ops@example.com', 'x', 'operator', 30);`;
    const before = (dir: string) => migrationsBefore(join(import.meta.dir, dir), "members_roles_two_factor");
    if (choice.engine === "sqlite") {
      const old = openStore(choice.path, sqliteSchema, before("../../drizzle"));
      old.sqlite.run(rows);
      old.sqlite.close();
    } else {
      const old = await openPgStore(choice, pgSchema, before("../../drizzle-pg"));
      await old.client.unsafe(rows);
      await old.close();
    }
    const store = await openUserStore(choice);
    opened.push(store);
    expect((await store.members("acc-1")).map((m) => [m.email, m.role])).toEqual([["one@example.com", "owner"]]);
    expect((await store.ownerEmails(["acc-1", "acc-2"])).get("acc-2")).toBe("two@example.com");
    expect((await store.userByEmail("ops@example.com"))?.role).toBe("operator");
    expect(isUniqueViolation(await refusal(() => store.insertTeam({ accountId: "acc-1", requireTwoFactor: false, createdAt: 1 })))).toBe(true);
  });
});
