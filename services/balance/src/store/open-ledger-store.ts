import { join } from "node:path";
import { openOnEngine, type DatabaseChoice, type Logger } from "@payaccept/platform";
import { openPgLedgerStore } from "./ledger-store.pg.ts";
import { openSqliteLedgerStore } from "./ledger-store.sqlite.ts";
import type { LedgerStore } from "./ledger-store.ts";
import { schema as pgSchema } from "./schema.pg.ts";

const MIGRATIONS = join(import.meta.dir, "../../drizzle");
const PG_MIGRATIONS = join(import.meta.dir, "../../drizzle-pg");

/** The ledger on the engine the configuration chose (BALANCE_DATABASE_URL), migrated. */
export async function openLedgerStore(choice: DatabaseChoice, log?: Logger): Promise<LedgerStore> {
  return openOnEngine(choice, (path) => openSqliteLedgerStore(path, MIGRATIONS), { schema: pgSchema, migrationsFolder: PG_MIGRATIONS, open: openPgLedgerStore }, log);
}
