import type { Database } from "bun:sqlite";
import { existsSync } from "node:fs";
import type { BunSQLDatabase } from "drizzle-orm/bun-sql";
import { importSqliteIntoPg, markImported, sqliteColumns, sqliteTables, type Imported } from "@payaccept/platform";
import * as pg from "./schema.pg.ts";

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
 */
export function importLegacyDirectory(sqlite: Database, legacyPath: string): Imported {
  if (!existsSync(legacyPath)) return undefined;
  sqlite.run("ATTACH DATABASE ? AS legacy", [legacyPath]);
  try {
    return sqlite
      .transaction(() => {
        const present = sqliteTables(sqlite, "legacy");
        if (!present.has("accounts") || present.has(IMPORTED_MARK)) return undefined;
        const count = (table: string) => sqlite.query<{ n: number }, []>(`SELECT count(*) AS n FROM main.${table}`).get()!.n;
        if (LEGACY_TABLES.some((t) => count(t) > 0)) return undefined;
        const copied: Record<string, number> = {};
        for (const table of LEGACY_TABLES.filter((t) => present.has(t))) {
          const legacy = new Set(sqliteColumns(sqlite, table, "legacy"));
          const columns = sqliteColumns(sqlite, table, "main").filter((c) => legacy.has(c)).map((c) => `"${c}"`).join(", ");
          copied[table] = sqlite.run(`INSERT INTO main.${table} (${columns}) SELECT ${columns} FROM legacy.${table}`).changes;
        }
        markImported(sqlite, "legacy", IMPORTED_MARK);
        return copied;
      })
      .immediate();
  } finally {
    sqlite.run("DETACH DATABASE legacy");
  }
}

/**
 * The same import into a directory on PostgreSQL, from a dashboard.db named by
 * DIRECTORY_IMPORT_FROM (docs/directory.md, "Moving from dashboard.db"), under the advisory lock
 * `payaccept.directory.import`.
 */
export function importLegacyIntoPg(db: BunSQLDatabase<typeof pg.schema>, legacyPath: string): Promise<Imported> {
  return importSqliteIntoPg(db, legacyPath, {
    tables: [
      ["accounts", pg.accounts],
      ["shops", pg.shops],
      ["api_keys", pg.apiKeys],
      // A directory.db moving to PostgreSQL brings its audit log along (a dashboard.db has none).
      ["audit_events", pg.auditEvents],
    ],
    mark: IMPORTED_MARK,
    lock: "payaccept.directory.import",
  });
}
