import { Database } from "bun:sqlite";
import { existsSync } from "node:fs";
import { getTableColumns, sql } from "drizzle-orm";
import type { BunSQLDatabase } from "drizzle-orm/bun-sql";
import type { PgTable } from "drizzle-orm/pg-core";
import * as pg from "./schema.pg.ts";

/** The directory tables as the dashboard kept them before the directory became its own service. */
const LEGACY_TABLES = ["accounts", "shops", "api_keys"] as const;
/** Left in the old file by the import: its rows are a snapshot of that moment and are never read again. */
const IMPORTED_MARK = "directory_imported";
/** Rows per INSERT when copying into PostgreSQL. */
const BATCH = 500;

export type Imported = Record<string, number> | undefined;

/**
 * Copies accounts, shops and API keys from a dashboard.db written before the directory was its own
 * service, once ever: only into an empty directory store, only tables the old file has, and never
 * from a file already imported (marked in it), so a directory.db lost later cannot be refilled with
 * that old snapshot (keys revoked since would come back). Columns are matched by name, so a column
 * either side lacks is left to its default. Runs under the write lock (BEGIN IMMEDIATE) and checks
 * inside it, so replicas starting together import once.
 * Returns the rows copied per table, or undefined when there was nothing to do.
 */
export function importLegacyDirectory(sqlite: Database, legacyPath: string): Imported {
  if (!existsSync(legacyPath)) return undefined;
  sqlite.run("ATTACH DATABASE ? AS legacy", [legacyPath]);
  try {
    return sqlite
      .transaction(() => {
        const present = tablesOf(sqlite, "legacy");
        if (!present.has("accounts") || present.has(IMPORTED_MARK)) return undefined;
        const count = (table: string) => sqlite.query<{ n: number }, []>(`SELECT count(*) AS n FROM main.${table}`).get()!.n;
        if (LEGACY_TABLES.some((t) => count(t) > 0)) return undefined;
        const copied: Record<string, number> = {};
        for (const table of LEGACY_TABLES.filter((t) => present.has(t))) {
          const legacy = new Set(columnsOf(sqlite, table, "legacy"));
          const columns = columnsOf(sqlite, table, "main").filter((c) => legacy.has(c)).map((c) => `"${c}"`).join(", ");
          copied[table] = sqlite.run(`INSERT INTO main.${table} (${columns}) SELECT ${columns} FROM legacy.${table}`).changes;
        }
        markImported(sqlite, "legacy");
        return copied;
      })
      .immediate();
  } finally {
    sqlite.run("DETACH DATABASE legacy");
  }
}

const PG_TABLES: Record<(typeof LEGACY_TABLES)[number], PgTable> = { accounts: pg.accounts, shops: pg.shops, api_keys: pg.apiKeys };

/**
 * The same import into a directory on PostgreSQL, from a dashboard.db named by
 * DIRECTORY_IMPORT_FROM (docs/directory.md, "Moving from dashboard.db"). The emptiness check and
 * the copy run in one transaction under the advisory lock `payaccept.directory.import`, so
 * replicas on several hosts import once; the old file is marked after the commit (a start that
 * dies in between finds the store no longer empty and imports nothing).
 */
export async function importLegacyIntoPg(db: BunSQLDatabase<typeof pg.schema>, legacyPath: string): Promise<Imported> {
  if (!existsSync(legacyPath)) return undefined;
  const legacy = new Database(legacyPath, { strict: true });
  try {
    legacy.run("PRAGMA busy_timeout = 5000");
    const present = tablesOf(legacy, "main");
    if (!present.has("accounts") || present.has(IMPORTED_MARK)) return undefined;
    const copied = await db.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(hashtext('payaccept.directory.import'))`);
      for (const table of Object.values(PG_TABLES)) if ((await tx.select({ n: sql<number>`count(*)::int` }).from(table))[0]!.n > 0) return undefined;
      const counts: Record<string, number> = {};
      for (const name of LEGACY_TABLES.filter((t) => present.has(t))) {
        const rows = legacyRows(legacy, name, PG_TABLES[name]);
        for (let at = 0; at < rows.length; at += BATCH) await tx.insert(PG_TABLES[name]).values(rows.slice(at, at + BATCH));
        counts[name] = rows.length;
      }
      return counts;
    });
    if (copied) markImported(legacy, "main");
    return copied;
  } finally {
    legacy.close();
  }
}

/** The old table's rows as the PostgreSQL table takes them: columns matched by name, 0/1 as booleans, JSON text parsed. */
function legacyRows(legacy: Database, table: string, target: PgTable): Record<string, unknown>[] {
  const byName = new Map(Object.entries(getTableColumns(target)).map(([key, column]) => [column.name, { key, type: column.columnType }]));
  const shared = columnsOf(legacy, table, "main").filter((c) => byName.has(c));
  return legacy
    .query<Record<string, unknown>, []>(`SELECT ${shared.map((c) => `"${c}"`).join(", ")} FROM ${table}`)
    .all()
    .map((row) =>
      Object.fromEntries(
        shared.map((name) => {
          const { key, type } = byName.get(name)!;
          const value = row[name];
          if (value === null) return [key, null];
          if (type === "PgBoolean") return [key, Boolean(value)];
          if (type === "PgJsonb" && typeof value === "string") return [key, JSON.parse(value)];
          return [key, value];
        }),
      ),
    );
}

function tablesOf(sqlite: Database, schema: string): Set<string> {
  return new Set(sqlite.query<{ name: string }, []>(`SELECT name FROM ${schema}.sqlite_master WHERE type = 'table'`).all().map((r) => r.name));
}

function columnsOf(sqlite: Database, table: string, schema: string): string[] {
  return sqlite.query<{ name: string }, []>(`SELECT name FROM pragma_table_info('${table}', '${schema}')`).all().map((r) => r.name);
}

function markImported(sqlite: Database, schema: string): void {
  sqlite.run(`CREATE TABLE ${schema}.${IMPORTED_MARK} (imported_at INTEGER NOT NULL)`);
  sqlite.run(`INSERT INTO ${schema}.${IMPORTED_MARK} (imported_at) VALUES (?)`, [Date.now()]);
}
