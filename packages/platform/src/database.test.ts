import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { SQL } from "bun";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startPostgres, startReplicatedPostgres, type Postgres } from "../../../tests/harness/postgres.ts";
import { commonEnv, parseConfig } from "./config.ts";
import { sql } from "drizzle-orm";
import { databaseEnv, databaseOf, DatabaseUnreachable, openPgStore, type PgChoice, type PgStore } from "./database.ts";
import { eventually } from "../../../tests/harness/stack.ts";
import { healthRoutes } from "./http.ts";
import { registry } from "./metrics.ts";
import { storeNow } from "./store-clock.ts";
import { SerialSqlite } from "./serial-sqlite.ts";

const shape = { ...commonEnv, ...databaseEnv("THING") };
const choose = (env: Record<string, string>) => databaseOf(parseConfig(shape, { DATA_DIR: "/tmp/d", ...env }), "THING", "thing.db");

describe("the engine a service picks by its own URL variable", () => {
  test("unset or empty: its SQLite file under DATA_DIR", () => {
    expect(choose({})).toEqual({ engine: "sqlite", path: "/tmp/d/thing.db" });
    expect(choose({ THING_DATABASE_URL: "" })).toEqual({ engine: "sqlite", path: "/tmp/d/thing.db" });
  });

  test("a postgres URL: its pool, its schema (public unless ?schema=), the shared timeouts", () => {
    expect(choose({ THING_DATABASE_URL: "postgres://u:p@db.internal:5433/pay?schema=thing&sslmode=disable", THING_DATABASE_POOL: "4", DATABASE_STATEMENT_TIMEOUT: "2s" })).toEqual({
      engine: "postgres",
      variable: "THING_DATABASE_URL",
      url: "postgres://u:p@db.internal:5433/pay?sslmode=disable",
      schema: "thing",
      pool: 4,
      statementTimeoutMs: 2000,
      connectTimeoutMs: 30_000,
      clockOffsetWarnMs: 500,
    });
    expect(choose({ THING_DATABASE_URL: "postgresql://db/pay" })).toMatchObject({ schema: "public", pool: 10, statementTimeoutMs: 5000 });
  });

  test("a URL listing a primary and its standbys (libpq's form): one URL per host, the first named first, target_session_attrs left out", () => {
    expect(choose({ THING_DATABASE_URL: "postgres://u:p@db-a:5432,db-b,10.0.0.3:5433/pay?target_session_attrs=read-write&schema=thing&sslmode=require" })).toMatchObject({
      url: "postgres://u:p@db-a:5432/pay?sslmode=require",
      otherHosts: ["postgres://u:p@db-b/pay?sslmode=require", "postgres://u:p@10.0.0.3:5433/pay?sslmode=require"],
      schema: "thing",
    });
    expect(choose({ THING_DATABASE_URL: "postgres://u@db/pay?target_session_attrs=primary" })).toEqual(expect.not.objectContaining({ otherHosts: expect.anything() }));
  });

  test.each([
    "mysql://db/pay",
    "postgres://db",
    "not a url",
    "postgres://u:secret@db/pay?schema=Bad-Name",
    // Every service writes: a session that may land on a standby is refused at start.
    "postgres://u:secret@db-a,db-b/pay?target_session_attrs=any",
    "postgres://u:secret@db-a,/pay",
  ])("%p is refused at start, naming the variable and not the password", (url) => {
    const message = String((() => {
      try {
        choose({ THING_DATABASE_URL: url });
      } catch (e) {
        return e;
      }
    })());
    expect(message).toContain("THING_DATABASE_URL: must be a postgres://");
    expect(message).not.toContain("secret");
  });
});

describe("a PostgreSQL store", () => {
  let pg: Postgres;
  let dir: string;
  beforeAll(async () => {
    pg = await startPostgres();
    dir = mkdtempSync(join(tmpdir(), "pg-store-test-"));
    mkdirSync(join(dir, "meta"), { recursive: true });
    const entries = ["0000_table", "0001_row"].map((tag, idx) => ({ idx, version: "7", when: 1_700_000_000_000 + idx, tag, breakpoints: true }));
    writeFileSync(join(dir, "meta", "_journal.json"), JSON.stringify({ version: "7", dialect: "postgresql", entries }));
    writeFileSync(join(dir, "0000_table.sql"), "CREATE TABLE counters (name text PRIMARY KEY, value bigint NOT NULL);");
    // Applied twice, this would fail on the primary key.
    writeFileSync(join(dir, "0001_row.sql"), "INSERT INTO counters VALUES ('hits', 0);");
  });
  afterAll(async () => {
    await pg?.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  const choice = (over: Partial<PgChoice> = {}): PgChoice => ({
    engine: "postgres",
    variable: "THING_DATABASE_URL",
    url: pg.url,
    schema: "thing",
    pool: 3,
    statementTimeoutMs: 5000,
    connectTimeoutMs: 5000,
    ...over,
  });

  test("three replicas starting at once each migrate under the advisory lock: every migration applied once, in the service's schema", async () => {
    const stores = await Promise.all([1, 2, 3].map(() => openPgStore(choice(), {}, dir)));
    try {
      const [one] = stores;
      expect(await one!.client`select name, value from counters`).toEqual([{ name: "hits", value: "0" }]);
      expect(await one!.client`select count(*)::int as n from thing.__drizzle_migrations`).toEqual([{ n: 2 }]);
      expect(await one!.client`select table_schema from information_schema.tables where table_name = 'counters'`).toEqual([{ table_schema: "thing" }]);
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });

  test("storeNow() reads the server's clock once a store is open, and the server's offset is a metric named by the variable", async () => {
    const store = await openPgStore(choice(), {}, dir);
    try {
      const [{ ms }] = await store.client`select extract(epoch from clock_timestamp()) * 1000 as ms`;
      // The same host: the server's clock is this one's, so storeNow() is within the round trips of both.
      expect(Math.abs(storeNow() - Number(ms))).toBeLessThan(250);
      const offset = (await registry.getSingleMetric("clock_offset_seconds")?.get())?.values.find((v) => v.labels.peer === "postgres:THING_DATABASE_URL");
      expect(Math.abs(offset!.value)).toBeLessThan(0.25);
    } finally {
      await store.close();
    }
  });

  test("every connection cancels a statement running past the statement timeout", async () => {
    // A second: opening the store runs its migrations under the same timeout, and a loaded machine makes DDL slow.
    const store = await openPgStore(choice({ schema: "timeouts", statementTimeoutMs: 1_000 }), {}, dir);
    try {
      await expect(store.client`select pg_sleep(10)`).rejects.toThrow("statement timeout");
    } finally {
      await store.close();
    }
  });

  describe("when the server ends the pool's sessions", () => {
    /** Every pooled connection opened, so that each holds a session the server can end. */
    const fillPool = (store: PgStore<Record<string, unknown>>, pool: number) => Promise.all(Array.from({ length: pool }, () => store.db.execute(sql`select pg_sleep(0.05)`)));
    const count = async (store: PgStore<Record<string, unknown>>) => Number((await store.client`select count(*)::int as n from hits`)[0].n);

    test("after a server restart the next statements and transactions succeed, each applied once", async () => {
      const store = await openPgStore(choice({ schema: "restarts", pool: 4 }), {}, dir);
      try {
        await store.db.execute(sql`create table hits (id text primary key)`);
        await fillPool(store, 4);
        pg.restart();
        expect(await store.db.execute(sql`select 1 as ok`)).toEqual([{ ok: 1 }]);
        await store.db.transaction(async (tx) => void (await tx.execute(sql`insert into hits values ('first')`)));
        await fillPool(store, 4);
        pg.restart();
        // More requests at once than connections: some land on two stale connections in turn.
        await Promise.all(
          Array.from({ length: 8 }, (_, i) =>
            i % 2 ? store.db.execute(sql`insert into hits values (${`s${i}`})`) : store.db.transaction(async (tx) => void (await tx.execute(sql`insert into hits values (${`t${i}`})`))),
          ),
        );
        expect(await count(store)).toBe(9);
      } finally {
        await store.close();
      }
    });

    /** Ends the session of the given backend from another connection, as a restart would. */
    const terminate = (store: PgStore<Record<string, unknown>>, pid: number) => store.client`select pg_terminate_backend(${pid})`;

    test("a transaction whose session ended before its COMMIT is run again", async () => {
      const store = await openPgStore(choice({ schema: "ended_before_commit", pool: 3 }), {}, dir);
      try {
        await store.db.execute(sql`create table hits (id text primary key)`);
        let runs = 0;
        await store.db.transaction(async (tx) => {
          runs++;
          await tx.execute(sql`insert into hits values (${`run${runs}`})`);
          if (runs === 1) {
            const pid = ((await tx.execute(sql`select pg_backend_pid() as pid`)) as unknown as { pid: number }[])[0]!.pid;
            await terminate(store, pid);
            await tx.execute(sql`select 1`);
          }
        });
        expect(runs).toBe(2);
        expect(await store.client`select id from hits`).toEqual([{ id: "run2" }]);
      } finally {
        await store.close();
      }
    });

    test("a transaction whose session is ended as its body finishes is run again only if it did not commit: never applied twice", async () => {
      const store = await openPgStore(choice({ schema: "ended_at_commit", pool: 3 }), {}, dir);
      try {
        await store.db.execute(sql`create table hits (id text primary key)`);
        let runs = 0;
        const outcome = await store.db
          .transaction(async (tx) => {
            runs++;
            await tx.execute(sql`insert into hits values ('once')`);
            const pid = ((await tx.execute(sql`select pg_backend_pid() as pid`)) as unknown as { pid: number }[])[0]!.pid;
            // Only on the first run: the session may end before the body returns (then the
            // transaction was rolled back and is run again) or after it (COMMIT sent: not run again).
            if (runs === 1) await terminate(store, pid);
          })
          .catch((e) => e);
        if (runs === 1) {
          expect(outcome).toBeInstanceOf(Error);
          // The server ended the session before the COMMIT arrived, so nothing was kept; in general the caller cannot know.
          expect(await count(store)).toBe(0);
        } else {
          expect(runs).toBe(2);
          expect(outcome).toBeUndefined();
          expect(await count(store)).toBe(1);
        }
      } finally {
        await store.close();
      }
    });
  });

  test("/readyz: 503 naming the variable while the server is down, without its URL; ready again once it is back", async () => {
    const store = await openPgStore(choice({ schema: "readiness", pool: 2 }), {}, dir);
    const app = healthRoutes({});
    const readyz = async () => {
      const res = await app.request("/readyz");
      return { status: res.status, text: await res.text() };
    };
    try {
      expect(await readyz()).toEqual({ status: 200, text: JSON.stringify({ status: "ready", checks: { database: true } }) });
      pg.down();
      let down: { status: number; text: string } | undefined;
      try {
        down = await eventually(async () => {
          const r = await readyz();
          return r.status === 503 && r;
        });
      } finally {
        pg.up();
      }
      expect(JSON.parse(down.text)).toEqual({ status: "not ready", checks: { database: false }, down: { database: expect.stringMatching(/^THING_DATABASE_URL: ERR_POSTGRES_/) } });
      expect(down.text).not.toContain("127.0.0.1");
      await eventually(async () => (await readyz()).status === 200);
    } finally {
      await store.close();
    }
  });

  test("an unreachable server fails the start after the connect timeout, naming the variable", async () => {
    const closed = `postgres://app@127.0.0.1:${pg.port + 1}/postgres`;
    const error = await openPgStore(choice({ url: closed, connectTimeoutMs: 1500 }), {}, dir).catch((e) => e);
    expect(error).toBeInstanceOf(DatabaseUnreachable);
    expect(String(error)).toContain(`THING_DATABASE_URL: PostgreSQL at 127.0.0.1:${pg.port + 1} is unreachable`);
  });

  test("a server that refuses us (no such database) fails the start at once, naming the variable", async () => {
    const error = await openPgStore(choice({ url: pg.url.replace(/postgres$/, "nowhere") }), {}, dir).catch((e) => e);
    expect(error).toBeInstanceOf(DatabaseUnreachable);
    expect(String(error)).toContain("THING_DATABASE_URL: PostgreSQL at 127.0.0.1");
    expect(String(error)).toContain('database "nowhere" does not exist');
  });
});

/**
 * A URL naming a primary and its synchronous standby (docs/operations-database.md, "Failover"):
 * the store starts on whichever takes writes, and follows the standby once it is promoted.
 */
describe("a PostgreSQL store on a primary and its standby", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "pg-failover-test-"));
    mkdirSync(join(dir, "meta"), { recursive: true });
    writeFileSync(join(dir, "meta", "_journal.json"), JSON.stringify({ version: "7", dialect: "postgresql", entries: [{ idx: 0, version: "7", when: 1, tag: "0000_hits", breakpoints: true }] }));
    writeFileSync(join(dir, "0000_hits.sql"), "CREATE TABLE hits (id text PRIMARY KEY);");
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("the primary killed and the standby promoted: statements and transactions go to the new primary without a restart, every answered write kept", async () => {
    const pair = await startReplicatedPostgres();
    // The standby named first: the store must still find the primary.
    const [primaryHost, standbyHost] = [pair.primary, pair.standby].map((s) => `127.0.0.1:${s.port}`);
    const parsed = choose({ THING_DATABASE_URL: `postgres://app@${standbyHost},${primaryHost}/postgres?target_session_attrs=read-write&schema=fo`, THING_DATABASE_POOL: "3" });
    const store = await openPgStore(parsed as PgChoice, {}, dir);
    try {
      const kept: string[] = [];
      const write = async (id: string, inTx: boolean) => {
        await (inTx ? store.db.transaction(async (tx) => void (await tx.execute(sql`insert into hits values (${id})`))) : store.db.execute(sql`insert into hits values (${id})`));
        kept.push(id);
      };
      await Promise.all(Array.from({ length: 6 }, (_, i) => write(`before-${i}`, i % 2 === 0)));
      pair.primary.kill();
      // While no server takes writes, a write fails (a missing dependency, not a hang).
      const during = await write("during", false).catch((e) => e);
      expect(during).toBeInstanceOf(Error);
      pair.standby.promote();
      // A search for the primary that found none stands for a quarter of a second (no probe storm), so the first write may have to wait out that.
      await eventually(() => write("promoted", false).then(() => true), 5_000);
      await Promise.all(Array.from({ length: 6 }, (_, i) => write(`after-${i}`, i % 2 === 0)));
      const rows = (await store.db.execute(sql`select id from hits order by id`)) as unknown as { id: string }[];
      expect(rows.map((r) => r.id)).toEqual([...kept].sort());
      expect(store.client).toBeDefined();
      expect(Number((await store.client`select count(*)::int as n from hits`)[0].n)).toBe(13);
    } finally {
      await store.close();
      await pair.stop();
    }
  }, 60_000);

  test("the standby lost: a commit waits for it (no timeout ends that wait) until the runbook's step lets the primary commit alone; applied once", async () => {
    const pair = await startReplicatedPostgres();
    const store = await openPgStore(choose({ THING_DATABASE_URL: `${pair.url}&schema=alone`, THING_DATABASE_POOL: "2", DATABASE_STATEMENT_TIMEOUT: "1s" }) as PgChoice, {}, dir);
    const admin = new SQL(pair.primary.url, { max: 1 });
    try {
      pair.standby.kill();
      let settled = false;
      const write = store.db.execute(sql`insert into hits values ('waiting')`).finally(() => (settled = true));
      // Past the statement timeout, the commit still waits for the standby's flush.
      await eventually(async () => ((await admin`select count(*)::int as n from pg_stat_activity where wait_event = 'SyncRep'`) as { n: number }[])[0]!.n === 1, 10_000);
      await Bun.sleep(1_500);
      expect(settled).toBe(false);
      // docs/operations-database.md, "Runbook: the standby is lost", step 2.
      await admin.unsafe("alter system set synchronous_standby_names = ''");
      await admin`select pg_reload_conf()`;
      await write;
      expect(((await admin`select count(*)::int as n from alone.hits`) as { n: number }[])[0]!.n).toBe(1);
    } finally {
      await admin.close();
      await store.close();
      await pair.stop();
    }
  }, 60_000);
});

describe("SerialSqlite", () => {
  const open = () => {
    const sqlite = new Database(":memory:");
    sqlite.exec("CREATE TABLE t (v integer NOT NULL)");
    const serial = new SerialSqlite(sqlite);
    const insert = sqlite.prepare("INSERT INTO t VALUES (?)");
    const count = sqlite.prepare<{ n: number }, []>("SELECT count(*) AS n FROM t");
    const ops = serial.outsideTx({ insert: async (v: number) => void insert.run(v), count: async () => count.get()!.n });
    return { serial, ops, insert, count };
  };

  test("a statement made outside a transaction waits for it, so a rollback never takes it along", async () => {
    const { serial, ops, insert } = open();
    const failing = serial.tx(async () => {
      insert.run(1);
      await Bun.sleep(10);
      throw new Error("undone");
    });
    const outside = ops.insert(2);
    await expect(failing).rejects.toThrow("undone");
    await outside;
    expect(await ops.count()).toBe(1);
  });

  test("transactions run one after another, each seeing the one before committed", async () => {
    const { serial, insert, count } = open();
    const seen = await Promise.all(
      [1, 2, 3].map((v) =>
        serial.tx(async () => {
          const before = count.get()!.n;
          await Bun.sleep(5);
          insert.run(v);
          return before;
        }),
      ),
    );
    expect(seen).toEqual([0, 1, 2]);
  });
});
