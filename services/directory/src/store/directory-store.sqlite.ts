import { openStore, SerialSqlite, sqliteDb, sqliteRun } from "@payaccept/platform";
import type { DirectoryStore } from "./directory-store.ts";
import { directoryOps, insertAuditEntryStatement, withAuditEntryPrepared } from "./directory-terms.ts";
import { importLegacyDirectory } from "./legacy-import.ts";
import { schema } from "./schema.sqlite.ts";

/** The directory on its SQLite file, every statement queued by SerialSqlite. */
export function openSqliteDirectoryStore(path: string, migrationsFolder: string): DirectoryStore {
  const { sqlite, db } = openStore(path, schema, migrationsFolder);
  const serial = new SerialSqlite(sqlite);
  const entry = insertAuditEntryStatement(sqliteDb(db), schema.auditEvents).prepare();
  const ops = withAuditEntryPrepared(directoryOps(sqliteDb(db), sqliteRun, schema), async (row) => entry.all(row).length);
  return {
    ...serial.outsideTx(ops),
    // The whole file is the lock: every unit runs one at a time, in every process.
    tx: (fn) => serial.tx(() => fn(ops)),
    importLegacy: (legacyPath) => serial.exclusive(() => importLegacyDirectory(sqlite, legacyPath)),
    close: async () => serial.exclusive(() => sqlite.close()),
  };
}
