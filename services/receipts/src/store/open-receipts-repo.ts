import { join } from "node:path";
import { openOnEngine, type DatabaseChoice, type Logger, type SqliteImport } from "@payaccept/platform";
import { openPgReceiptsRepo } from "./receipts-repo.pg.ts";
import { openSqliteReceiptsRepo } from "./receipts-repo.sqlite.ts";
import type { ReceiptsRepo } from "./receipts-repo.ts";
import { schema as pgSchema } from "./schema.pg.ts";

const MIGRATIONS = join(import.meta.dir, "../../drizzle");
const PG_MIGRATIONS = join(import.meta.dir, "../../drizzle-pg");

/**
 * The receipts on the engine the configuration chose (RECEIPTS_DATABASE_URL), migrated. On
 * PostgreSQL, `importFrom` names the receipts.db of a deployment moving over: its receipts are
 * copied once into the empty store, those still PENDING or SENT with their external ids, so the
 * sender carries on with them and the register's idempotency keeps each one document.
 */
export async function openReceiptsRepo(choice: DatabaseChoice, opts: { importFrom?: string; log?: Logger } = {}): Promise<ReceiptsRepo> {
  const importFrom: SqliteImport<typeof pgSchema> = { from: opts.importFrom, tables: [["receipts", pgSchema.receipts]], mark: "receipts_imported", lock: "payaccept.receipts.import", what: "receipts" };
  return openOnEngine(choice, (path) => openSqliteReceiptsRepo(path, MIGRATIONS), { schema: pgSchema, migrationsFolder: PG_MIGRATIONS, open: openPgReceiptsRepo, importFrom }, opts.log);
}
