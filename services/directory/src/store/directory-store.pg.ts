import { pgDb, pgRun, type PgStore } from "@payaccept/platform";
import type { DirectoryOps, DirectoryStore } from "./directory-store.ts";
import { directoryOps } from "./directory-terms.ts";
import { importLegacyIntoPg } from "./legacy-import.ts";
import * as pg from "./schema.pg.ts";

const pgOps = (db: Pick<PgStore<typeof pg.schema>["db"], "select" | "insert" | "update" | "delete">): DirectoryOps => directoryOps(pgDb(db), pgRun, pg.schema);

/** The directory on PostgreSQL; a shop's read-modify-write locks its row (DirectoryOps.shopForUpdate). */
export function openPgDirectoryStore({ db, close }: PgStore<typeof pg.schema>): DirectoryStore {
  return { ...pgOps(db), tx: (fn) => db.transaction((tx) => fn(pgOps(tx))), importLegacy: (legacyPath) => importLegacyIntoPg(db, legacyPath), close };
}
