import { Database } from "bun:sqlite";
import { existsSync } from "node:fs";
import { getTableColumns, sql } from "drizzle-orm";
import type { BunSQLDatabase } from "drizzle-orm/bun-sql";
import type { PgTable } from "drizzle-orm/pg-core";

/** Rows copied per table, or undefined when there was nothing to do. */
export type Imported = Record<string, number> | undefined;

/** Rows per INSERT when copying into PostgreSQL. */
const BATCH = 500;

/**
 * Moving a service's rows from its SQLite file to PostgreSQL, once ever: the named tables of the
 * file (those it has; columns matched by name, so a column either side lacks is left to its
 * default) into an empty store, never from a file already imported (`mark`, a table left in it),
 * so a store lost later is not refilled with that old snapshot. The emptiness check and the copy
 * run in one transaction under the advisory lock `lock`, so replicas on several hosts import once;
 * the file is marked after the commit (a start that dies in between finds the store no longer
 * empty and imports nothing). Tables are copied in the order given: parents before children.
 */
export async function importSqliteIntoPg(
  db: BunSQLDatabase<Record<string, unknown>>,
  from: string,
  opts: { tables: [string, PgTable][]; mark: string; lock: string },
): Promise<Imported> {
  if (!existsSync(from)) return undefined;
  const file = new Database(from, { strict: true });
  try {
    file.run("PRAGMA busy_timeout = 5000");
    const present = sqliteTables(file, "main");
    if (!present.has(opts.tables[0]![0]) || present.has(opts.mark)) return undefined;
    const copied = await db.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${opts.lock}))`);
      for (const [, table] of opts.tables) if ((await tx.select({ n: sql<number>`count(*)::int` }).from(table))[0]!.n > 0) return undefined;
      const counts: Record<string, number> = {};
      for (const [name, table] of opts.tables.filter(([name]) => present.has(name))) {
        const rows = rowsFor(file, name, table);
        for (let at = 0; at < rows.length; at += BATCH) await tx.insert(table).values(rows.slice(at, at + BATCH));
        counts[name] = rows.length;
      }
      return counts;
    });
    if (copied) markImported(file, "main", opts.mark);
    return copied;
  } finally {
    file.close();
  }
}

/** The file's rows as the PostgreSQL table takes them: 0/1 as booleans, JSON text parsed. */
function rowsFor(file: Database, name: string, target: PgTable): Record<string, unknown>[] {
  const byName = new Map(Object.entries(getTableColumns(target)).map(([key, column]) => [column.name, { key, type: column.columnType }]));
  const shared = sqliteColumns(file, name, "main").filter((c) => byName.has(c));
  return file
    .query<Record<string, unknown>, []>(`SELECT ${shared.map((c) => `"${c}"`).join(", ")} FROM "${name}"`)
    .all()
    .map((row) =>
      Object.fromEntries(
        shared.map((column) => {
          const { key, type } = byName.get(column)!;
          const value = row[column];
          if (value === null) return [key, null];
          if (type === "PgBoolean") return [key, Boolean(value)];
          if ((type === "PgJsonb" || type === "PgJson") && typeof value === "string") return [key, JSON.parse(value)];
          return [key, value];
        }),
      ),
    );
}

/** The tables of an open (or ATTACHed, by its schema name) SQLite database. */
export function sqliteTables(sqlite: Database, schema: string): Set<string> {
  return new Set(sqlite.query<{ name: string }, []>(`SELECT name FROM ${schema}.sqlite_master WHERE type = 'table'`).all().map((r) => r.name));
}

export function sqliteColumns(sqlite: Database, table: string, schema: string): string[] {
  return sqlite.query<{ name: string }, []>(`SELECT name FROM pragma_table_info('${table}', '${schema}')`).all().map((r) => r.name);
}

/** Leaves `mark` in the file: its rows were imported and are never to be read again. */
export function markImported(sqlite: Database, schema: string, mark: string): void {
  sqlite.run(`CREATE TABLE ${schema}.${mark} (imported_at INTEGER NOT NULL)`);
  sqlite.run(`INSERT INTO ${schema}.${mark} (imported_at) VALUES (?)`, [Date.now()]);
}
