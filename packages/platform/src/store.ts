import { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { drizzle, type BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import { migrate } from "drizzle-orm/bun-sqlite/migrator";

export type Store<S extends Record<string, unknown>> = { sqlite: Database; db: BunSQLiteDatabase<S> };

/**
 * Opens the owning service's SQLite file (WAL, synchronous=NORMAL, busy timeout) and applies its
 * committed drizzle migrations. Only the owning service ever opens its file.
 */
export function openStore<S extends Record<string, unknown>>(path: string, schema: S, migrationsFolder: string): Store<S> {
  mkdirSync(dirname(path), { recursive: true });
  const sqlite = new Database(path, { create: true, strict: true });
  sqlite.exec("PRAGMA journal_mode = WAL");
  sqlite.exec("PRAGMA synchronous = NORMAL");
  sqlite.exec("PRAGMA busy_timeout = 5000");
  sqlite.exec("PRAGMA foreign_keys = ON");
  sqlite.exec("PRAGMA cache_size = -65536");
  const db = drizzle(sqlite, { schema });
  migrate(db, { migrationsFolder });
  return { sqlite, db };
}
