import { expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import * as pg from "drizzle-orm/pg-core";
import * as lite from "drizzle-orm/sqlite-core";
import { schemaDrift } from "./schema-drift.ts";
import { table, type AnyTable } from "./table.ts";

// One definition cannot drift (table.ts builds both); these pairs are written twice on purpose.
const parents = { name: "parents", sqlite: lite.sqliteTable("parents", { id: lite.text("id").primaryKey() }), pg: pg.pgTable("parents", { id: pg.text("id").primaryKey() }) };

/** A hand-made pair: `liteCols`/`pgCols` and their extras, with the triggers each engine declares. */
function pair(
  liteCols: Record<string, lite.SQLiteColumnBuilderBase>,
  pgCols: Record<string, pg.PgColumnBuilderBase>,
  liteExtras: (t: Record<"id" | "k" | "n", never>) => lite.SQLiteTableExtraConfigValue[] = () => [],
  pgExtras: (t: Record<"id" | "k" | "n", never>) => pg.PgTableExtraConfigValue[] = () => [],
  triggers = { sqlite: [] as string[], pg: [] as string[] },
): AnyTable {
  return { name: "t", sqlite: lite.sqliteTable("t", liteCols, liteExtras as never), pg: pg.pgTable("t", pgCols, pgExtras as never), triggers };
}

test("one definition has no drift, whatever it declares", () => {
  const t = table(
    "t",
    (k) => ({
      id: k.identity("id"),
      parentId: k.text("parent_id").notNull().references(() => parents as never, "id", { onDelete: "cascade" }),
      n: k.bigint("n").notNull().default(0),
      on: k.boolean("on").notNull().default(false),
    }),
    (t, x) => [x.index("t_n").on(t.n).where(sql`${t.on} = true`), x.check("t_n_positive", sql`${t.n} >= 0`)],
    { sqlite: { triggers: ["t_guard"] }, pg: { extras: (t, x) => [x.check("t_guard", sql`${t.n} < 10`)] } },
  );
  expect(schemaDrift({ t })).toEqual([]);
});

test("a kind, a nullability, a default and an index condition are each named (SQLite integer = PostgreSQL bigint)", () => {
  const t = pair(
    { id: lite.text("id").primaryKey(), n: lite.integer("n").notNull().default(1), at: lite.integer("at"), k: lite.text("k") },
    { id: pg.text("id").primaryKey(), n: pg.bigint("n", { mode: "number" }).notNull().default(2), at: pg.text("at"), k: pg.text("k").notNull() },
    (t) => [lite.index("t_k").on(t.k).where(sql`${t.k} IS NOT NULL`)],
    (t) => [pg.index("t_k").on(t.k)],
  );
  expect(schemaDrift({ t })).toEqual([
    'table t: PostgreSQL has "column at text null", SQLite does not',
    'table t: PostgreSQL has "column k text not null", SQLite does not',
    'table t: PostgreSQL has "column n integer not null default 2", SQLite does not',
    'table t: PostgreSQL has "index t_k (k)", SQLite does not',
    'table t: SQLite has "column at integer null", PostgreSQL does not',
    'table t: SQLite has "column k text null", PostgreSQL does not',
    'table t: SQLite has "column n integer not null default 1", PostgreSQL does not',
    'table t: SQLite has "index t_k (k) where k is not null", PostgreSQL does not',
  ]);
});

test("a foreign key's action and a CHECK's condition are named", () => {
  const t = pair(
    { id: lite.text("id").primaryKey(), parentId: lite.text("parent_id").references(() => parents.sqlite.id), n: lite.integer("n") },
    { id: pg.text("id").primaryKey(), parentId: pg.text("parent_id").references(() => parents.pg.id, { onDelete: "cascade" }), n: pg.integer("n") },
    (t) => [lite.check("t_n", sql`${t.n} > 0`)],
    (t) => [pg.check("t_n", sql`${t.n} >= 0`)],
  );
  expect(schemaDrift({ t })).toEqual([
    'table t: PostgreSQL has "check t_n (n >= 0)", SQLite does not',
    'table t: PostgreSQL has "foreign key (parent_id) references parents(id) on delete cascade on update no action", SQLite does not',
    'table t: SQLite has "check t_n (n > 0)", PostgreSQL does not',
    'table t: SQLite has "foreign key (parent_id) references parents(id) on delete no action on update no action", PostgreSQL does not',
  ]);
});

test("a CHECK on one engine needs the other's trigger of its name; triggers on one engine only are named", () => {
  const cols = () => [{ id: lite.text("id").primaryKey() }, { id: pg.text("id").primaryKey() }] as const;
  const guarded = (liteTriggers: string[], pgTriggers: string[]) => {
    const [l, p] = cols();
    return pair(l, p, undefined, (t) => [pg.check("t_guard", sql`${t.id} <> ''`)], { sqlite: liteTriggers, pg: pgTriggers });
  };
  expect(schemaDrift({ t: guarded(["t_guard"], []) })).toEqual([]);
  expect(schemaDrift({ t: guarded([], []) })).toEqual(['table t: PostgreSQL has "check t_guard (id <> \'\')", SQLite does not']);
  expect(schemaDrift({ t: guarded(["t_guard", "t_rollup"], []) })).toEqual(['table t: SQLite has "kept up by triggers", PostgreSQL does not']);
  expect(schemaDrift({ t: guarded(["t_guard", "t_rollup"], ["t_rollup_per_statement"]) })).toEqual([]);
});
