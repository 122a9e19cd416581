import { pgDb, pgRun, type PgStore } from "@payaccept/platform";
import type { DirectoryOps, DirectoryStore } from "./directory-store.ts";
import { directoryOps, insertAuditEntryStatement, withAuditEntryPrepared } from "./directory-terms.ts";
import { importLegacyIntoPg } from "./legacy-import.ts";
import * as pg from "./schema.pg.ts";

const pgOps = (db: Pick<PgStore<typeof pg.schema>["db"], "select" | "insert" | "update" | "delete">): DirectoryOps => directoryOps(pgDb(db), pgRun, pg.schema);

/** The directory on PostgreSQL; a shop's read-modify-write locks its row (DirectoryOps.shopForUpdate). */
export function openPgDirectoryStore({ db, close }: PgStore<typeof pg.schema>): DirectoryStore {
  // Prepared on the pool: a transaction's own entries take pgOps(tx)'s statement.
  const entry = insertAuditEntryStatement(pgDb(db), pg.schema.auditEvents).prepare("directory_insert_audit_entry");
  return { ...withAuditEntryPrepared(pgOps(db), async (row) => (await entry.execute(row)).length), tx: (fn) => db.transaction((tx) => fn(pgOps(tx))), importLegacy: (legacyPath) => importLegacyIntoPg(db, legacyPath), close };
}
