import { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { basename, dirname } from "node:path";
import { drizzle, type BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import { migrate } from "drizzle-orm/bun-sqlite/migrator";
import { registerStoreProbe } from "./store-readiness.ts";
import { registerBackupSource } from "./store-backup.ts";

export type Store<S extends Record<string, unknown>> = { sqlite: Database; db: BunSQLiteDatabase<S> };

/** Replicas starting together each try this often; only a lost race (below) needs a second try. */
const MIGRATE_ATTEMPTS = 3;

/**
 * Opens the owning service's SQLite file (WAL, synchronous=NORMAL, busy timeout) and applies its
 * committed drizzle migrations. Only the owning service ever opens its file; several replicas of
 * that service on one host may share it (docs/replicas.md, "Replicas").
 */
export function openStore<S extends Record<string, unknown>>(path: string, schema: S, migrationsFolder: string, opts: { tempInMemory?: boolean } = {}): Store<S> {
  mkdirSync(dirname(path), { recursive: true });
  const sqlite = new ProbedDatabase(path);
  // First, so that every later statement waits for a lock another process holds instead of failing.
  sqlite.exec("PRAGMA busy_timeout = 5000");
  enableWal(sqlite);
  sqlite.exec("PRAGMA synchronous = NORMAL");
  sqlite.exec("PRAGMA foreign_keys = ON");
  sqlite.exec("PRAGMA cache_size = -65536");
  const db = drizzle(sqlite, { schema });
  migrateAlongsideReplicas(db, migrationsFolder);
  // After the migrations, whose index builds may sort a whole table: those keep spilling to a file.
  if (opts.tempInMemory) sqlite.exec("PRAGMA temp_store = MEMORY");
  return { sqlite, db };
}

/** The file, part of the process's /readyz (store-readiness.ts) from opening to close. */
class ProbedDatabase extends Database {
  private readonly unregister: () => void;
  private readonly unregisterBackup: () => void;

  constructor(path: string) {
    super(path, { create: true, strict: true });
    // Prepared on the first probe, not here: preparing reads the schema, which fails at once while
    // another replica migrates a fresh file, before openStore has set the busy timeout.
    let selectOne: ReturnType<Database["prepare"]> | undefined;
    this.unregister = registerStoreProbe(`SQLite ${basename(path)}`, () => (selectOne ??= this.prepare("SELECT 1")).get());
    this.unregisterBackup = registerBackupSource({ engine: "sqlite", path });
  }

  override close(throwOnError?: boolean): void {
    this.unregister();
    this.unregisterBackup();
    super.close(throwOnError);
  }
}

/**
 * Switching a fresh file to WAL needs the file to itself, and SQLite answers SQLITE_BUSY at once
 * instead of waiting on the busy timeout: replicas opening one new file together retry (bounded).
 */
function enableWal(sqlite: Database, maxWaitMs = 5000): void {
  for (let waited = 0; ; waited += 20) {
    try {
      sqlite.exec("PRAGMA journal_mode = WAL");
      return;
    } catch (e) {
      if ((e as { code?: string }).code !== "SQLITE_BUSY" || waited >= maxWaitMs) throw e;
      Bun.sleepSync(20);
    }
  }
}

/**
 * drizzle's migrator reads which migrations are applied before its transaction takes the write
 * lock, so a replica starting at the same moment as another can try to apply what the other has
 * just applied. Its transaction then fails and rolls back whole; the next try reads the table again
 * and finds nothing left to do.
 */
function migrateAlongsideReplicas<S extends Record<string, unknown>>(db: BunSQLiteDatabase<S>, migrationsFolder: string): void {
  for (let attempt = 1; ; attempt++) {
    try {
      migrate(db, { migrationsFolder });
      return;
    } catch (e) {
      if (attempt >= MIGRATE_ATTEMPTS) throw e;
    }
  }
}
