import { openStore, SerialSqlite, sqliteDb, sqliteRun } from "@payaccept/platform";
import { schema } from "./schema.sqlite.ts";
import type { UserStore } from "./user-store.ts";
import { atomicOps, throttleStatements, userOps } from "./user-terms.ts";

/** The dashboard's store on its SQLite file, every statement queued by SerialSqlite. */
export function openSqliteUserStore(path: string, migrationsFolder: string): UserStore {
  const { sqlite, db } = openStore(path, schema, migrationsFolder);
  const serial = new SerialSqlite(sqlite);
  const ops = userOps(sqliteDb(db), sqliteRun, schema);
  const throttles = throttleStatements(sqliteDb(db), schema);

  // The whole file is the lock: every unit runs one at a time, in every process.
  const tx: UserStore["tx"] = (fn) => serial.tx(() => fn(ops));
  return {
    ...serial.outsideTx(ops),
    ...atomicOps(tx),
    tx,
    updateThrottles: (keys, decide) =>
      serial.tx(async () => {
        const rows = throttles.byKeys(keys).all();
        const change = decide(keys.map((key) => rows.find((r) => r.key === key)));
        for (const row of change.save) throttles.save(row).run();
        if (change.clear.length > 0) throttles.clear(change.clear).run();
        return change.result;
      }),
    close: async () => serial.exclusive(() => sqlite.close()),
  };
}
