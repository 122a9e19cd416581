import { afterEach, describe, expect, test } from "bun:test";
import { ENGINES, storesPerFile, type Engine } from "../../../../tests/harness/engines.ts";
import { ADDRESS_POLICY, claimAttempt, EMAIL_POLICY } from "../users/throttle.ts";
import { Flash } from "../web/flash.ts";
import type { UserRow } from "./schema.ts";
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
  role: "merchant",
  createdAt: 1,
  ...over,
});

async function refusal(fn: () => Promise<unknown>): Promise<unknown> {
  try {
    await fn();
  } catch (e) {
    return e;
  }
  throw new Error("expected a refusal");
}

describe.each(ENGINES)("the dashboard's store (%s)", (engine) => {
  test("one user per email and one merchant per account: the database's unique keys refuse, recognised by code", async () => {
    const [a, b] = await replicas(engine);
    const owner = user();
    await a.insertUser(owner);
    expect(isUniqueViolation(await refusal(() => b.insertUser(user({ email: owner.email }))))).toBe(true);
    expect(isUniqueViolation(await refusal(() => b.insertUser(user({ accountId: owner.accountId }))))).toBe(true);
    // Operators have no account: any number of them.
    await b.insertUser(user({ accountId: null, role: "operator" }));
    await b.insertUser(user({ accountId: null, role: "operator" }));
    expect(isUniqueViolation(new Error("UNIQUE constraint failed: users.email"))).toBe(false);
  });

  test("a one-shot message put by one replica is shown once by the other, only on its page, sealed at rest", async () => {
    const [a, b] = await replicas(engine);
    let now = 1_000;
    const owner = user();
    await a.insertUser(owner);
    const session = { sessionId: "hash-1", token: "T".repeat(43) };
    await a.insertSession({ idHash: session.sessionId, userId: owner.id, createdAt: now, expiresAt: now + 3_600_000 });
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
});
