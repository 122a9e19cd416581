import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { bigint, pgTable, text as pgText, uniqueIndex as pgUniqueIndex } from "drizzle-orm/pg-core";
import { startPostgres, type Postgres } from "../../../tests/harness/postgres.ts";
import { commonEnv, parseConfig } from "./config.ts";
import { databaseEnv, databaseOf, DatabaseUnreachable, openPgStore, type PgChoice } from "./database.ts";
import { schemaDrift } from "./schema-drift.ts";
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
    });
    expect(choose({ THING_DATABASE_URL: "postgresql://db/pay" })).toMatchObject({ schema: "public", pool: 10, statementTimeoutMs: 5000 });
  });

  test.each(["mysql://db/pay", "postgres://db", "not a url", "postgres://u:secret@db/pay?schema=Bad-Name"])("%p is refused at start, naming the variable and not the password", (url) => {
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

  test("every connection cancels a statement running past the statement timeout", async () => {
    const store = await openPgStore(choice({ schema: "timeouts", statementTimeoutMs: 100 }), {}, dir);
    try {
      await expect(store.client`select pg_sleep(1)`).rejects.toThrow("statement timeout");
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

describe("schemaDrift", () => {
  const lite = {
    t: sqliteTable("t", { id: text("id").primaryKey(), n: integer("n").notNull(), k: text("k") }, (t) => [uniqueIndex("t_k").on(t.k)]),
  };

  test("agreeing schemas: nothing (SQLite integer = PostgreSQL bigint)", () => {
    const pg = { t: pgTable("t", { id: pgText("id").primaryKey(), n: bigint("n", { mode: "number" }).notNull(), k: pgText("k") }, (t) => [pgUniqueIndex("t_k").on(t.k)]) };
    expect(schemaDrift(lite, pg)).toEqual([]);
  });

  test("a missing table, a nullability, a type and an index are each named", () => {
    const pg = {
      t: pgTable("t", { id: pgText("id").primaryKey(), n: pgText("n"), k: pgText("k") }),
      extra: pgTable("extra", { id: pgText("id").primaryKey() }),
    };
    expect(schemaDrift(lite, pg)).toEqual([
      'table t: PostgreSQL has "column n text null", SQLite does not',
      'table t: SQLite has "column n integer not null", PostgreSQL does not',
      'table t: SQLite has "unique index t_k (k)", PostgreSQL does not',
      "table extra: only on PostgreSQL",
    ].sort());
  });
});
