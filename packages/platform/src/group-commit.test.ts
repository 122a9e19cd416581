import { afterEach, beforeEach, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GroupCommit } from "./group-commit.ts";

let dir: string;
let db: Database;
let other: Database;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "group-commit-"));
  db = new Database(join(dir, "t.db"), { create: true, strict: true });
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("CREATE TABLE t (x INTEGER NOT NULL UNIQUE)");
  // A second connection sees only what is committed.
  other = new Database(join(dir, "t.db"), { strict: true });
});
afterEach(() => {
  db.close();
  other.close();
  rmSync(dir, { recursive: true, force: true });
});

const insert = (x: number) => () => db.run("INSERT INTO t (x) VALUES (?)", [x]).lastInsertRowid;
const committed = () => other.query<{ x: number }, []>("SELECT x FROM t ORDER BY x").all().map((r) => r.x);

test("writes of one turn share a transaction, and each caller learns its own outcome after the commit", async () => {
  const commits: number[] = [];
  db.exec("CREATE TABLE marks (n INTEGER)");
  const group = new GroupCommit(db);
  const results = [1, 2, 2, 3].map((x) =>
    group.run(() => {
      insert(x)();
      // What this write sees of the others: the earlier writes of its group, not yet committed.
      commits.push(other.query<{ n: number }, []>("SELECT count(*) AS n FROM t").get()!.n);
      return x;
    }),
  );
  const settled = await Promise.allSettled(results);
  expect(settled.map((s) => s.status)).toEqual(["fulfilled", "fulfilled", "rejected", "fulfilled"]);
  expect((settled[2] as PromiseRejectedResult).reason.message).toContain("UNIQUE");
  // The failed write undid only itself; nothing was visible to another connection until the one commit.
  expect(committed()).toEqual([1, 2, 3]);
  expect(commits.filter((n) => n !== 0)).toEqual([]);
});

test("a write's nested transactions become savepoints: its partial changes are undone with it", async () => {
  const group = new GroupCommit(db);
  const failing = group.run(() =>
    db.transaction(() => {
      insert(10)();
      insert(10)(); // fails after the first insert succeeded
    })(),
  );
  const next = group.run(insert(1));
  await expect(failing).rejects.toThrow("UNIQUE");
  await expect(next).resolves.toBeDefined();
  expect(committed()).toEqual([1]);
});

test("when the transaction cannot be taken, every write of the group fails and none is kept", async () => {
  db.exec("PRAGMA busy_timeout = 50");
  other.exec("BEGIN IMMEDIATE");
  other.run("INSERT INTO t (x) VALUES (100)");
  const group = new GroupCommit(db);
  const writes = [group.run(insert(1)), group.run(insert(2))];
  const settled = await Promise.allSettled(writes);
  expect(settled.every((s) => s.status === "rejected" && String((s as PromiseRejectedResult).reason).includes("locked"))).toBe(true);
  other.exec("ROLLBACK");
  expect(committed()).toEqual([]);
});

test("groups follow one another: a write asked for while a group commits goes into the next", async () => {
  const group = new GroupCommit(db);
  const order: string[] = [];
  let queued: Promise<unknown> | undefined;
  const first = group.run(() => {
    order.push("first");
    queued = group.run(() => order.push("queued during the first"));
    return 1;
  });
  await first;
  // Queued while the first group ran, it is neither lost nor waiting for a write that never comes.
  await queued;
  expect(order).toEqual(["first", "queued during the first"]);
  expect(committed()).toEqual([]);
});

test("what a write defers until the commit runs after it, never for a write that was undone or a group that failed", async () => {
  const group = new GroupCommit(db);
  const seen: string[] = [];
  const write = (x: number, thenFail = false) => () => {
    insert(x)();
    group.afterCommit(() => seen.push(`${x}: ${committed().includes(x) ? "committed" : "not yet"}`));
    if (thenFail) throw new Error("the use case failed after writing");
  };
  const results = await Promise.allSettled([group.run(write(1)), group.run(write(2, true)), group.run(write(3))]);
  expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
  expect(seen).toEqual(["1: committed", "3: committed"]);
  expect(committed()).toEqual([1, 3]);

  // Outside a group the write's own transaction has committed: the callback runs at once.
  group.afterCommit(() => seen.push("outside"));
  expect(seen.at(-1)).toBe("outside");

  db.exec("PRAGMA busy_timeout = 50");
  other.exec("BEGIN IMMEDIATE");
  await Promise.allSettled([group.run(write(4))]);
  other.exec("ROLLBACK");
  expect(seen).toEqual(["1: committed", "3: committed", "outside"]);
});

test("a callback that throws is reported and keeps neither the other callbacks nor the callers waiting", async () => {
  const errors: unknown[] = [];
  const group = new GroupCommit(db, (err) => errors.push(err));
  const ran: number[] = [];
  const results = await Promise.all([
    group.run(() => group.afterCommit(() => {
      throw new Error("announce failed");
    })),
    group.run(() => group.afterCommit(() => ran.push(2))),
  ]);
  expect(results).toHaveLength(2);
  expect(ran).toEqual([2]);
  expect(errors.map((e) => (e as Error).message)).toEqual(["announce failed"]);
});
