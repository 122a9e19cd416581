import { openStore, SerialSqlite, sqliteDb, sqliteRun } from "@payaccept/platform";
import type { DirectoryStore } from "./directory-store.ts";
import { directoryOps } from "./directory-terms.ts";
import { importLegacyDirectory } from "./legacy-import.ts";
import { schema } from "./schema.sqlite.ts";

/** The directory on its SQLite file, every statement queued by SerialSqlite. */
export function openSqliteDirectoryStore(path: string, migrationsFolder: string): DirectoryStore {
  const { sqlite, db } = openStore(path, schema, migrationsFolder);
  const serial = new SerialSqlite(sqlite);
  const ops = directoryOps(sqliteDb(db), sqliteRun, schema);
  return {
    ...serial.outsideTx(ops),
    // The whole file is the lock: every unit runs one at a time, in every process.
    tx: (fn) => serial.tx(() => fn(ops)),
    importLegacy: (legacyPath) => serial.exclusive(() => importLegacyDirectory(sqlite, legacyPath)),
    close: async () => serial.exclusive(() => sqlite.close()),
  };
}
