import { join } from "node:path";
import { openOnEngine, type DatabaseChoice, type Logger, type SqliteImport } from "@payaccept/platform";
import { openPgReceiptsStore } from "./receipts-store.pg.ts";
import { openSqliteReceiptsStore } from "./receipts-store.sqlite.ts";
import type { ReceiptsStore } from "./receipts-store.ts";
import { schema as pgSchema } from "./schema.pg.ts";

const MIGRATIONS = join(import.meta.dir, "../../drizzle");
const PG_MIGRATIONS = join(import.meta.dir, "../../drizzle-pg");

/**
 * The receipts on the engine the configuration chose (RECEIPTS_DATABASE_URL), migrated. On
 * PostgreSQL, `importFrom` names the receipts.db of a deployment moving over: its receipts are
 * copied once into the empty store, those still PENDING or SENT with their external ids, so the
 * sender carries on with them and the register's idempotency keeps each one document.
 */
export async function openReceiptsStore(choice: DatabaseChoice, opts: { importFrom?: string; log?: Logger } = {}): Promise<ReceiptsStore> {
  const importFrom: SqliteImport<typeof pgSchema> = { from: opts.importFrom, tables: [["receipts", pgSchema.receipts]], mark: "receipts_imported", lock: "payaccept.receipts.import", what: "receipts" };
  return openOnEngine(choice, (path) => openSqliteReceiptsStore(path, MIGRATIONS), { schema: pgSchema, migrationsFolder: PG_MIGRATIONS, open: openPgReceiptsStore, importFrom }, opts.log);
}
