import { join } from "node:path";
import { sql } from "drizzle-orm";
import type { PgTable } from "drizzle-orm/pg-core";
import { openOnEngine, type DatabaseChoice, type Logger, type PgStore } from "@payaccept/platform";
import * as pgSchema from "./schema.pg.ts";
import { openPgUserStore } from "./user-store.pg.ts";
import { openSqliteUserStore } from "./user-store.sqlite.ts";
import type { UserStore } from "./user-store.ts";

const MIGRATIONS = join(import.meta.dir, "../../drizzle");
const PG_MIGRATIONS = join(import.meta.dir, "../../drizzle-pg");

/**
 * A file from before teams (dashboard.db of an older release) has one merchant user per account
 * and no teams: each becomes its team's owner, as the SQLite migration 0005 does to a file in place.
 */
async function ownersOfOldMerchants({ db }: PgStore<typeof pgSchema.schema>): Promise<void> {
  await db.execute(sql`
    INSERT INTO teams (account_id, require_two_factor, created_at)
      SELECT account_id, false, min(created_at) FROM users WHERE role = 'merchant' AND account_id IS NOT NULL GROUP BY account_id
    ON CONFLICT DO NOTHING`);
  await db.execute(sql`UPDATE users SET role = 'owner' WHERE role = 'merchant'`);
}

/**
 * The dashboard's store on the engine the configuration chose (DASHBOARD_DATABASE_URL), migrated.
 * On PostgreSQL, `importFrom` names the dashboard.db of a deployment moving over: its users, teams,
 * sessions, second factors and invitations are copied once into the empty store (nobody signs up,
 * in or enrols again).
 */
export async function openUserStore(choice: DatabaseChoice, opts: { importFrom?: string; log?: Logger } = {}): Promise<UserStore> {
  const s = pgSchema;
  // Parents before children.
  const tables: [string, PgTable][] = [
    ["users", s.users],
    ["teams", s.teams],
    ["sessions", s.sessions],
    ["two_factor", s.twoFactor],
    ["recovery_codes", s.recoveryCodes],
    ["invites", s.invites],
  ];
  const importFrom = { from: opts.importFrom, tables, mark: "dashboard_imported", lock: "payaccept.dashboard.import", what: "users and sessions", afterCopy: ownersOfOldMerchants };
  return openOnEngine(choice, (path) => openSqliteUserStore(path, MIGRATIONS), { schema: pgSchema.schema, migrationsFolder: PG_MIGRATIONS, open: openPgUserStore, importFrom }, opts.log);
}
