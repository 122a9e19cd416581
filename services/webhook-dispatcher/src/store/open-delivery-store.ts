import { join } from "node:path";
import { sql } from "drizzle-orm";
import { openOnEngine, type DatabaseChoice, type Logger, type SqliteImport } from "@payaccept/platform";
import { pgDeliveryStore } from "./delivery-store.pg.ts";
import { openSqliteDeliveryStore } from "./delivery-store.sqlite.ts";
import type { DeliveryStore } from "./delivery-store.ts";
import { attempts, deliveries, schema as pgSchema } from "./schema.pg.ts";

const PG_MIGRATIONS = join(import.meta.dir, "../../drizzle-pg");

/**
 * The delivery store on the engine WEBHOOKS_DATABASE_URL chose (unset: webhooks.db under DATA_DIR).
 * On PostgreSQL, `importFrom` names the webhooks.db of a deployment moving over: its deliveries
 * and attempts are copied once into the empty store, pending schedules included (the WEBHOOKS
 * stream still holds their messages); the health rollup is then rebuilt from them (how each event's
 * first attempt went is in its attempts, which the deliveries' insert trigger does not see).
 */
export async function openDeliveryStore(choice: DatabaseChoice, opts: { importFrom?: string; log?: Logger } = {}): Promise<DeliveryStore> {
  const importFrom: SqliteImport<typeof pgSchema> = {
    from: opts.importFrom,
    tables: [
      ["deliveries", deliveries],
      ["attempts", attempts],
    ],
    mark: "webhooks_imported",
    lock: "payaccept.webhooks.import",
    what: "deliveries",
    afterCopy: async ({ db }) => void (await db.execute(sql`select delivery_health_rebuild()`)),
  };
  return openOnEngine(choice, openSqliteDeliveryStore, { schema: pgSchema, migrationsFolder: PG_MIGRATIONS, open: ({ db, close }) => pgDeliveryStore(db, close), importFrom }, opts.log);
}
