import { join } from "node:path";
import { sql } from "drizzle-orm";
import { openOnEngine, type DatabaseChoice, type Logger, type PgStore, type SqliteImport } from "@payaccept/platform";
import type { PaymentsStore, StoreHooks } from "./payments-store.ts";
import { openPgPaymentsStore } from "./payments-store.pg.ts";
import { openSqlitePaymentsStore } from "./payments-store.sqlite.ts";
import { schema as pgSchema } from "./schema.pg.ts";

const PG_MIGRATIONS = join(import.meta.dir, "../../drizzle-pg");

/**
 * payments' store on the engine the configuration chose (PAYMENTS_DATABASE_URL), migrated. On
 * PostgreSQL, `importFrom` names the payments.db of a deployment moving over: its rows are copied
 * once into the empty store (payments before their refunds; the outbox in its order, unpublished
 * events still to be published).
 */
export async function openPaymentsStore(choice: DatabaseChoice, hooks: StoreHooks, opts: { importFrom?: string; log?: Logger } = {}): Promise<PaymentsStore> {
  const importFrom: SqliteImport<typeof pgSchema> = {
    from: opts.importFrom,
    tables: [
      ["payments", pgSchema.payments],
      ["status_counts", pgSchema.statusCounts],
      ["refunds", pgSchema.refunds],
      ["daily_stats", pgSchema.dailyStats],
      ["daily_refunds", pgSchema.dailyRefunds],
      ["outbox", pgSchema.outbox],
      ["saved_methods", pgSchema.savedMethods],
    ],
    mark: "payments_imported",
    lock: "payaccept.payments.import",
    what: "payments",
    // The outbox's seqs came with its rows: the identity goes on after the last of them.
    afterCopy: async ({ db }) => void (await db.execute(sql`select setval(pg_get_serial_sequence('outbox', 'seq'), coalesce((select max(seq) from outbox), 0) + 1, false)`)),
  };
  const pg = { schema: pgSchema, migrationsFolder: PG_MIGRATIONS, open: (store: PgStore<typeof pgSchema>) => openPgPaymentsStore(store, hooks), importFrom };
  return openOnEngine(choice, (path) => openSqlitePaymentsStore(path, hooks), pg, opts.log);
}
