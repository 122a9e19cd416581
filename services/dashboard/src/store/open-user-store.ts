import { join } from "node:path";
import type { PgTable } from "drizzle-orm/pg-core";
import { openOnEngine, type DatabaseChoice, type Logger } from "@payaccept/platform";
import * as pgSchema from "./schema.pg.ts";
import { openPgUserStore } from "./user-store.pg.ts";
import { openSqliteUserStore } from "./user-store.sqlite.ts";
import type { UserStore } from "./user-store.ts";

const MIGRATIONS = join(import.meta.dir, "../../drizzle");
const PG_MIGRATIONS = join(import.meta.dir, "../../drizzle-pg");

/**
 * The dashboard's store on the engine the configuration chose (DASHBOARD_DATABASE_URL), migrated.
 * On PostgreSQL, `importFrom` names the dashboard.db of a deployment moving over: its users and
 * sessions are copied once into the empty store (nobody signs up or in again).
 */
export async function openUserStore(choice: DatabaseChoice, opts: { importFrom?: string; log?: Logger } = {}): Promise<UserStore> {
  const tables: [string, PgTable][] = [["users", pgSchema.users], ["sessions", pgSchema.sessions]];
  const importFrom = { from: opts.importFrom, tables, mark: "dashboard_imported", lock: "payaccept.dashboard.import", what: "users and sessions" };
  return openOnEngine(choice, (path) => openSqliteUserStore(path, MIGRATIONS), { schema: pgSchema.schema, migrationsFolder: PG_MIGRATIONS, open: openPgUserStore, importFrom }, opts.log);
}
