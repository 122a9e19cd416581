import { pgDb, pgRun, type PgStore } from "@payaccept/platform";
import * as pg from "./schema.pg.ts";
import type { UserOps, UserStore } from "./user-store.ts";
import { atomicOps, throttleStatements, userOps } from "./user-terms.ts";

type Db = PgStore<typeof pg.schema>["db"];
const pgOps = (db: Pick<Db, "select" | "insert" | "update" | "delete">): UserOps => userOps(pgDb(db), pgRun, pg.schema);

/** The dashboard's store on PostgreSQL; locks as UserStore.updateThrottles and UserOps.teamForUpdate say. */
export function openPgUserStore({ db, close }: PgStore<typeof pg.schema>): UserStore {
  const tx: UserStore["tx"] = (fn) => db.transaction((t) => fn(pgOps(t)));
  return {
    ...pgOps(db),
    ...atomicOps(tx),
    tx,
    updateThrottles: (keys, decide) =>
      db.transaction(async (tx) => {
        const throttles = throttleStatements(pgDb(tx), pg.schema);
        // A key's first attempt has no row to lock yet: an empty one (no failures) is made first.
        // (SQLite needs none: its BEGIN IMMEDIATE already holds the whole file.)
        await tx
          .insert(pg.loginThrottle)
          .values([...keys].sort().map((key) => ({ key, failures: 0, lastFailureAt: 0, lockedUntil: 0 })))
          .onConflictDoNothing();
        const locked = await throttles.byKeys(keys).for("update");
        const change = decide(keys.map((key) => locked.find((r) => r.key === key)));
        for (const row of change.save) await throttles.save(row);
        if (change.clear.length > 0) await throttles.clear(change.clear);
        return change.result;
      }),
    close,
  };
}
