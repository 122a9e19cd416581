import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { openPgStore, openStore, type PgChoice } from "@payaccept/platform";
import type { AnyTable } from "@payaccept/platform/table";
import { ROOT } from "../infra/launcher/services.ts";
import { tables as balance } from "../services/balance/src/store/schema.ts";
import { tables as dashboard } from "../services/dashboard/src/store/schema.ts";
import { tables as directory } from "../services/directory/src/store/schema.ts";
import { tables as payments } from "../services/payments/src/store/schema.ts";
import { tables as receipts } from "../services/receipts/src/store/schema.ts";
import { tables as webhooks } from "../services/webhook-dispatcher/src/store/schema.ts";
import { ENGINES, storesPerFile } from "./harness/engines.ts";

// The triggers a schema declares (table.ts) are created by hand-written migration SQL, which
// drizzle-kit does not read: the migrated databases must have exactly those, no more, no fewer.
const SERVICES: [string, Record<string, AnyTable>][] = [
  ["payments", payments],
  ["balance", balance],
  ["directory", directory],
  ["dashboard", dashboard],
  ["receipts", receipts],
  ["webhook-dispatcher", webhooks],
];

const stores = storesPerFile();

/** "table: trigger" for each trigger the tables declare on the engine. */
const declared = (tables: Record<string, AnyTable>, engine: "sqlite" | "pg") =>
  Object.values(tables)
    .flatMap((t) => t.triggers[engine].map((name) => `${t.name}: ${name}`))
    .sort();

describe.each(ENGINES)("the migrated %s databases have the triggers their tables declare", (engine) => {
  test.each(SERVICES)("%s", async (service, tables) => {
    const choice = await stores.next(engine, `${service}.db`);
    const migrations = join(ROOT, "services", service, engine === "sqlite" ? "drizzle" : "drizzle-pg");
    if (choice.engine === "sqlite") {
      const { sqlite } = openStore(choice.path, {}, migrations);
      const found = sqlite.query<{ t: string }, []>("select tbl_name || ': ' || name as t from sqlite_master where type = 'trigger' order by t").all();
      sqlite.close();
      expect(found.map((r) => r.t)).toEqual(declared(tables, "sqlite"));
    } else {
      const pg = await openPgStore(choice as PgChoice, {}, migrations);
      const found = await pg.db.execute<{ t: string }>(
        sql`select c.relname || ': ' || g.tgname as t from pg_trigger g join pg_class c on c.oid = g.tgrelid join pg_namespace n on n.oid = c.relnamespace where not g.tgisinternal and n.nspname = current_schema() order by t`,
      );
      await pg.close();
      expect([...found].map((r) => r.t)).toEqual(declared(tables, "pg"));
    }
  });
});
