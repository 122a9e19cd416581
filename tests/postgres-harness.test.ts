import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync } from "node:fs";
import { SQL } from "bun";
import { eventually } from "./harness/stack.ts";
import { startPostgres, type Postgres } from "./harness/postgres.ts";

setDefaultTimeout(60_000);

/**
 * The throwaway PostgreSQL of tests/harness/postgres.ts, which the store tests build on: it starts
 * as an unprivileged user on a free port, Bun's built-in client reaches it, a row lock taken with
 * SELECT … FOR UPDATE makes a second transaction wait for the first (the lock the stores name
 * instead of SQLite's file lock), and it stops leaving nothing behind.
 */
let pg: Postgres;
const clients: SQL[] = [];
const client = () => {
  const c = new SQL(pg.url, { max: 1 });
  clients.push(c);
  return c;
};

beforeAll(async () => {
  pg = await startPostgres();
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await pg?.stop();
});

describe("throwaway PostgreSQL", () => {
  test("answers on its port as the app user", async () => {
    const [row] = await client()`select current_user as who, current_setting('port') as port, version() as version`;
    expect(row).toMatchObject({ who: "app", port: String(pg.port) });
    expect(row.version).toContain("PostgreSQL");
  });

  test("SELECT … FOR UPDATE serialises two transactions on one row: no lost update", async () => {
    const setup = client();
    await setup`create table balances (account text primary key, kopecks bigint not null)`;
    await setup`insert into balances values ('acc-1', 0)`;
    const [first, second, observer] = [client(), client(), client()];

    let releaseFirst!: () => void;
    const firstMayCommit = new Promise<void>((r) => (releaseFirst = r));
    let firstLocked!: () => void;
    const firstHasLock = new Promise<void>((r) => (firstLocked = r));
    const firstTx = first.begin(async (tx) => {
      const [row] = await tx`select kopecks from balances where account = 'acc-1' for update`;
      firstLocked();
      await firstMayCommit;
      await tx`update balances set kopecks = ${Number(row.kopecks) + 100} where account = 'acc-1'`;
    });
    await firstHasLock;

    // The second transaction's read-then-write, started while the first holds the row.
    const seen: number[] = [];
    const secondTx = second.begin(async (tx) => {
      const [row] = await tx`select kopecks from balances where account = 'acc-1' for update`;
      seen.push(Number(row.kopecks));
      await tx`update balances set kopecks = ${Number(row.kopecks) + 100} where account = 'acc-1'`;
    });
    // It waits on the first one's row lock (seen by PostgreSQL itself, not by a timer).
    await eventually(async () => {
      const waiting = await observer`select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and query like '%for update%'`;
      return waiting[0].n === 1;
    });
    expect(seen).toEqual([]);

    releaseFirst();
    await Promise.all([firstTx, secondTx]);
    // The second read the first one's committed result, not the value before it.
    expect(seen).toEqual([100]);
    const [final] = await observer`select kopecks from balances where account = 'acc-1'`;
    expect(Number(final.kopecks)).toBe(200);
  });

  test("stops cleanly and removes its folder", async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    const dir = pg.dir;
    await pg.stop();
    expect(existsSync(dir)).toBe(false);
    const refused = await new SQL(`${pg.url}?connect_timeout=2`, { max: 1, connectionTimeout: 2 })`select 1`.then(
      () => false,
      () => true,
    );
    expect(refused).toBe(true);
  });
});
