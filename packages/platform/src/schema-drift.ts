import { Column, getTableName, is, Param, SQL, StringChunk } from "drizzle-orm";
import { getTableConfig as pgTableConfig } from "drizzle-orm/pg-core";
import { getTableConfig as sqliteTableConfig } from "drizzle-orm/sqlite-core";
import type { AnyTable } from "./table.ts";

/**
 * The same kind of value on both engines. SQLite's INTEGER is 64-bit, so kopecks and epoch ms
 * are `bigint` on PostgreSQL; both count as "integer" here.
 */
const FAMILY: Record<string, string> = {
  SQLiteInteger: "integer",
  SQLiteBigInt: "integer",
  PgInteger: "integer",
  PgBigInt53: "integer",
  PgBigInt64: "integer",
  PgSmallInt: "integer",
  SQLiteText: "text",
  PgText: "text",
  PgVarchar: "text",
  SQLiteBoolean: "boolean",
  PgBoolean: "boolean",
  SQLiteTimestamp: "timestamp",
  PgTimestamp: "timestamp",
  SQLiteReal: "real",
  PgDoublePrecision: "real",
  PgReal: "real",
  SQLiteBlobBuffer: "blob",
  PgBytea: "blob",
  SQLiteTextJson: "json",
  SQLiteBlobJson: "json",
  PgJsonb: "json",
  PgJson: "json",
};

type ColumnShape = {
  name: string;
  columnType: string;
  notNull: boolean;
  primary: boolean;
  isUnique: boolean;
  enumValues?: readonly string[];
  hasDefault: boolean;
  default: unknown;
  autoIncrement?: boolean;
  generatedIdentity?: unknown;
};
type Shape = {
  columns: ColumnShape[];
  primaryKeys: { columns: { name: string }[] }[];
  uniqueConstraints: { columns: { name: string }[] }[];
  indexes: { config: { name: string; unique: boolean; columns: unknown[]; where?: SQL } }[];
  checks: { name: string; value: SQL }[];
  foreignKeys: { reference(): { columns: { name: string }[]; foreignColumns: { name: string; table: never }[] }; onDelete?: string; onUpdate?: string }[];
};

/** A condition or default as text, columns by name, so that both engines' builds of one definition read alike. */
function text(value: unknown): string {
  if (is(value, SQL)) return value.queryChunks.map(text).join("");
  if (is(value, StringChunk)) return value.value.join("");
  if (is(value, Column)) return value.name;
  if (is(value, Param)) return JSON.stringify(value.value);
  return typeof value === "string" ? value : JSON.stringify(value);
}
const condition = (value: SQL) => text(value).replace(/\s+/g, " ").trim().toLowerCase();

/**
 * Every fact of a table that both engines must agree on, one line each, sorted. A CHECK on one
 * engine that the other keeps with a trigger of the same name is one fact, `guard <name>`; the
 * other triggers are the engine's own code (named differently per engine), so only that the
 * table has some is a fact.
 */
function facts(config: Shape, own: string[], other: { checks: string[]; triggers: string[] }): string[] {
  const names = (cols: unknown[]) => cols.map((c) => (c as { name?: string }).name ?? "<expression>").join(",");
  const lines = config.columns.map((c) =>
    [
      `column ${c.name}`,
      FAMILY[c.columnType] ?? c.columnType,
      c.notNull ? "not null" : "null",
      c.enumValues?.length ? `enum(${c.enumValues.join("|")})` : "",
      c.hasDefault && c.default !== undefined ? `default ${text(c.default)}` : "",
      c.autoIncrement || c.generatedIdentity ? "numbered by the database" : "",
    ].filter(Boolean).join(" "),
  );
  const primary = config.columns.filter((c) => c.primary).map((c) => c.name);
  for (const pk of config.primaryKeys) primary.push(...pk.columns.map((c) => c.name));
  lines.push(`primary key (${primary.join(",")})`);
  for (const c of config.columns.filter((col) => col.isUnique)) lines.push(`unique (${c.name})`);
  for (const u of config.uniqueConstraints) lines.push(`unique (${names(u.columns)})`);
  for (const i of config.indexes) {
    const where = i.config.where ? ` where ${condition(i.config.where)}` : "";
    lines.push(`${i.config.unique ? "unique index" : "index"} ${i.config.name} (${names(i.config.columns)})${where}`);
  }
  for (const fk of config.foreignKeys) {
    const { columns, foreignColumns } = fk.reference();
    // Unset is "no action" on both engines; PostgreSQL's builder writes it out, SQLite's does not.
    const actions = `on delete ${fk.onDelete ?? "no action"} on update ${fk.onUpdate ?? "no action"}`;
    lines.push(`foreign key (${names(columns)}) references ${getTableName(foreignColumns[0]!.table)}(${names(foreignColumns)}) ${actions}`);
  }
  for (const c of config.checks) lines.push(other.triggers.includes(c.name) ? `guard ${c.name}` : `check ${c.name} (${condition(c.value)})`);
  for (const t of own) if (other.checks.includes(t)) lines.push(`guard ${t}`);
  if (own.some((t) => !other.checks.includes(t))) lines.push("kept up by triggers");
  return lines.sort();
}

/**
 * How a service's tables differ between their SQLite and PostgreSQL builds (columns, their kinds,
 * nullability and defaults, primary and unique keys, indexes with their conditions, foreign keys,
 * CHECKs, the triggers each engine declares), one line per difference; empty when they agree.
 */
export function schemaDrift(tables: Record<string, AnyTable>): string[] {
  const drift: string[] = [];
  for (const t of Object.values(tables)) {
    const lite = sqliteTableConfig(t.sqlite) as unknown as Shape;
    const pg = pgTableConfig(t.pg) as unknown as Shape;
    const checks = (c: Shape) => c.checks.map((x) => x.name);
    const a = facts(lite, t.triggers.sqlite, { checks: checks(pg), triggers: t.triggers.pg });
    const b = facts(pg, t.triggers.pg, { checks: checks(lite), triggers: t.triggers.sqlite });
    if (getTableName(t.sqlite) !== getTableName(t.pg)) drift.push(`table ${t.name}: named ${getTableName(t.sqlite)} on SQLite, ${getTableName(t.pg)} on PostgreSQL`);
    for (const fact of a) if (!b.includes(fact)) drift.push(`table ${t.name}: SQLite has "${fact}", PostgreSQL does not`);
    for (const fact of b) if (!a.includes(fact)) drift.push(`table ${t.name}: PostgreSQL has "${fact}", SQLite does not`);
  }
  return drift.sort();
}
