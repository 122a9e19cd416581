import { expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { getTableConfig as pgConfig } from "drizzle-orm/pg-core";
import { getTableConfig as sqliteConfig } from "drizzle-orm/sqlite-core";
import { engineTables, table } from "./table.ts";

const parents = table("parents", (k) => ({ id: k.text("id").primaryKey() }));
const children = table(
  "children",
  (k) => ({
    seq: k.identity("seq"),
    parentId: k.text("parent_id").notNull().references(() => parents, "id", { onDelete: "cascade" }),
    state: k.text("state", { enum: ["A", "B"] }).notNull().default("A"),
    amountKopecks: k.bigint("amount_kopecks").notNull(),
    tries: k.integer("tries").notNull().default(0),
    paid: k.boolean("paid").notNull().default(false),
    data: k.json("data").$type<{ n: number }>(),
    code: k.text("code").unique(),
  }),
  (t, x) => [x.index("children_parent_idx").on(t.parentId, t.seq).where(sql`${t.paid} = false`), x.check("children_amount", sql`${t.amountKopecks} > 0`)],
  { sqlite: { triggers: ["children_guard"] }, pg: { extras: (t, x) => [x.check("children_guard", sql`${t.tries} >= 0`)] } },
);

const columnTypes = (cols: { name: string; getSQLType(): string }[]) => Object.fromEntries(cols.map((c) => [c.name, c.getSQLType()]));

test("one definition builds each engine's column types: 64-bit integers are bigint on PostgreSQL, JSON is jsonb", () => {
  expect(columnTypes(sqliteConfig(children.sqlite).columns)).toEqual({
    seq: "integer",
    parent_id: "text",
    state: "text",
    amount_kopecks: "integer",
    tries: "integer",
    paid: "integer",
    data: "text",
    code: "text",
  });
  expect(columnTypes(pgConfig(children.pg).columns)).toEqual({
    seq: "bigint",
    parent_id: "text",
    state: "text",
    amount_kopecks: "bigint",
    tries: "integer",
    paid: "boolean",
    data: "jsonb",
    code: "text",
  });
});

test("keys, defaults, references and the numbered primary key are the same on both engines", () => {
  const lite = sqliteConfig(children.sqlite);
  const pg = pgConfig(children.pg);
  for (const c of [lite, pg]) {
    const byName = Object.fromEntries(c.columns.map((col) => [col.name, col]));
    expect(byName.seq!.primary).toBe(true);
    expect(byName.state!.default).toBe("A");
    expect(byName.state!.enumValues).toEqual(["A", "B"]);
    expect(byName.paid!.default).toBe(false);
    expect(byName.code!.isUnique).toBe(true);
    expect(c.foreignKeys.map((fk) => [fk.reference().foreignColumns[0]!.name, fk.onDelete])).toEqual([["id", "cascade"]]);
    expect(c.indexes.map((i) => i.config.name)).toEqual(["children_parent_idx"]);
  }
  expect((sqliteConfig(children.sqlite).columns.find((c) => c.name === "seq") as unknown as { autoIncrement: boolean }).autoIncrement).toBe(true);
  expect(pgConfig(children.pg).columns.find((c) => c.name === "seq")!.generatedIdentity?.type).toBe("byDefault");
});

test("what only one engine has is built on that engine alone, and its triggers are declared by name", () => {
  expect(sqliteConfig(children.sqlite).checks.map((c) => c.name)).toEqual(["children_amount"]);
  expect(pgConfig(children.pg).checks.map((c) => c.name)).toEqual(["children_amount", "children_guard"]);
  expect(children.triggers).toEqual({ sqlite: ["children_guard"], pg: [] });
});

test("engineTables hands each engine its drizzle tables under the same keys", () => {
  const { parents: p, children: c } = engineTables({ parents, children }, "pg");
  expect([p, c]).toEqual([parents.pg, children.pg]);
});
