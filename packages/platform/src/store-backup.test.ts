import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore } from "./store.ts";
import { copyStore } from "./store-backup.ts";

/** A service's copy of its own SQLite store (docs/operations-database.md, "Backups"), without a stack. */
describe("copyStore", () => {
  const dir = mkdtempSync(join(tmpdir(), "store-backup-test-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const migrations = join(import.meta.dir, "../../../services/balance/drizzle");

  test("a consistent copy while another connection holds an open write: what was committed, not what was not; a repeat answers the same copy", async () => {
    const store = openStore(join(dir, "balance.db"), {}, migrations);
    try {
      store.sqlite.exec("CREATE TABLE hits (id INTEGER PRIMARY KEY)");
      store.sqlite.exec("INSERT INTO hits VALUES (1), (2)");
      // Another process in the middle of a transaction: its row is not committed when the copy is made.
      const writer = new Database(join(dir, "balance.db"));
      writer.exec("BEGIN IMMEDIATE; INSERT INTO hits VALUES (3)");
      const copy = await copyStore("balance.db", "nightly", join(dir, "backups"));
      writer.exec("COMMIT");
      writer.close();
      expect(copy).toMatchObject({ engine: "sqlite", path: join(dir, "backups", "nightly", "balance.db") });
      const copied = new Database(join(dir, "backups", "nightly", "balance.db"), { readonly: true });
      expect(copied.query("SELECT count(*) AS n FROM hits").get()).toEqual({ n: 2 });
      copied.close();
      // Whole, with no WAL beside it and no half-written file left.
      expect(existsSync(join(dir, "backups", "nightly", "balance.db-wal"))).toBe(false);
      expect(existsSync(join(dir, "backups", "nightly", "balance.db.partial"))).toBe(false);
      // A copy of the call (a hedged request) finds the first copy and answers it.
      const first = copy as { path: string; sha256: string; bytes: number };
      expect(await copyStore("balance.db", "nightly", join(dir, "backups"))).toMatchObject({ path: first.path, sha256: first.sha256, bytes: first.bytes });
    } finally {
      store.sqlite.close();
    }
  });

  test("a store this process did not open is refused as unavailable, not copied from elsewhere", async () => {
    expect(await copyStore("payments.db", "nightly", join(dir, "backups")).catch((e) => e)).toMatchObject({ reason: "SERVICE_UNAVAILABLE" });
  });
});
