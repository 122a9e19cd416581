import { is } from "drizzle-orm";
import { getTableConfig as pgTableConfig, PgTable } from "drizzle-orm/pg-core";
import { getTableConfig as sqliteTableConfig, SQLiteTable } from "drizzle-orm/sqlite-core";

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

type Column = { name: string; columnType: string; notNull: boolean; primary: boolean; isUnique: boolean; enumValues?: readonly string[] };
type Shape = { columns: Column[]; primaryKeys: { columns: { name: string }[] }[]; uniqueConstraints: { columns: { name: string }[] }[]; indexes: { config: { name: string; unique: boolean; columns: unknown[] } }[] };

/** Every fact of a table that both engines must agree on, one line each, sorted. */
function facts(config: Shape): string[] {
  const names = (cols: unknown[]) => cols.map((c) => (c as { name?: string }).name ?? "<expression>").join(",");
  const lines = config.columns.map((c) =>
    [
      `column ${c.name}`,
      FAMILY[c.columnType] ?? c.columnType,
      c.notNull ? "not null" : "null",
      c.enumValues?.length ? `enum(${c.enumValues.join("|")})` : "",
    ].filter(Boolean).join(" "),
  );
  const primary = config.columns.filter((c) => c.primary).map((c) => c.name);
  for (const pk of config.primaryKeys) primary.push(...pk.columns.map((c) => c.name));
  lines.push(`primary key (${primary.join(",")})`);
  for (const c of config.columns.filter((col) => col.isUnique)) lines.push(`unique (${c.name})`);
  for (const u of config.uniqueConstraints) lines.push(`unique (${names(u.columns)})`);
  for (const i of config.indexes) lines.push(`${i.config.unique ? "unique index" : "index"} ${i.config.name} (${names(i.config.columns)})`);
  return lines.sort();
}

function tablesOf(schema: Record<string, unknown>): Map<string, string[]> {
  const tables = new Map<string, string[]>();
  for (const value of Object.values(schema)) {
    if (is(value, SQLiteTable)) {
      const c = sqliteTableConfig(value);
      tables.set(c.name, facts(c as unknown as Shape));
    } else if (is(value, PgTable)) {
      const c = pgTableConfig(value);
      tables.set(c.name, facts(c as unknown as Shape));
    }
  }
  return tables;
}

/**
 * How a service's PostgreSQL schema differs from its SQLite one (tables, columns, their kinds and
 * nullability, primary keys, unique keys, indexes), one line per difference; empty when they agree.
 */
export function schemaDrift(sqliteSchema: Record<string, unknown>, pgSchema: Record<string, unknown>): string[] {
  const lite = tablesOf(sqliteSchema);
  const pg = tablesOf(pgSchema);
  const drift: string[] = [];
  for (const name of new Set([...lite.keys(), ...pg.keys()])) {
    const a = lite.get(name);
    const b = pg.get(name);
    if (!a || !b) {
      drift.push(`table ${name}: only on ${a ? "SQLite" : "PostgreSQL"}`);
      continue;
    }
    for (const fact of a) if (!b.includes(fact)) drift.push(`table ${name}: SQLite has "${fact}", PostgreSQL does not`);
    for (const fact of b) if (!a.includes(fact)) drift.push(`table ${name}: PostgreSQL has "${fact}", SQLite does not`);
  }
  return drift.sort();
}
