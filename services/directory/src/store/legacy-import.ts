import { existsSync } from "node:fs";
import type { Database } from "bun:sqlite";

/** The directory tables as the dashboard kept them before the directory became its own service. */
const LEGACY_TABLES = ["accounts", "shops", "api_keys"] as const;
/** Left in the old file by the import: its rows are a snapshot of that moment and are never read again. */
const IMPORTED_MARK = "directory_imported";

/**
 * Copies accounts, shops and API keys from a dashboard.db written before the directory was its own
 * service, once ever: only into an empty directory store, only tables the old file has, and never
 * from a file already imported (marked in it), so a directory.db lost later cannot be refilled with
 * that old snapshot (keys revoked since would come back). Columns are matched by name, so a column
 * either side lacks is left to its default. Runs under the write lock (BEGIN IMMEDIATE) and checks
 * inside it, so replicas starting together import once.
 * Returns the rows copied per table, or undefined when there was nothing to do.
 */
export function importLegacyDirectory(sqlite: Database, legacyPath: string): Record<string, number> | undefined {
  if (!existsSync(legacyPath)) return undefined;
  sqlite.run("ATTACH DATABASE ? AS legacy", [legacyPath]);
  try {
    return sqlite
      .transaction(() => {
        const present = new Set(sqlite.query<{ name: string }, []>("SELECT name FROM legacy.sqlite_master WHERE type = 'table'").all().map((r) => r.name));
        if (!present.has("accounts") || present.has(IMPORTED_MARK)) return undefined;
        const count = (table: string) => sqlite.query<{ n: number }, []>(`SELECT count(*) AS n FROM main.${table}`).get()!.n;
        if (LEGACY_TABLES.some((t) => count(t) > 0)) return undefined;
        const copied: Record<string, number> = {};
        for (const table of LEGACY_TABLES.filter((t) => present.has(t))) {
          const columns = sharedColumns(sqlite, table).map((c) => `"${c}"`).join(", ");
          copied[table] = sqlite.run(`INSERT INTO main.${table} (${columns}) SELECT ${columns} FROM legacy.${table}`).changes;
        }
        sqlite.run(`CREATE TABLE legacy.${IMPORTED_MARK} (imported_at INTEGER NOT NULL)`);
        sqlite.run(`INSERT INTO legacy.${IMPORTED_MARK} (imported_at) VALUES (?)`, [Date.now()]);
        return copied;
      })
      .immediate();
  } finally {
    sqlite.run("DETACH DATABASE legacy");
  }
}

function sharedColumns(sqlite: Database, table: string): string[] {
  const names = (schema: string) => sqlite.query<{ name: string }, []>(`SELECT name FROM pragma_table_info('${table}', '${schema}')`).all().map((r) => r.name);
  const legacy = new Set(names("legacy"));
  return names("main").filter((c) => legacy.has(c));
}
