import { afterEach, beforeEach, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Replicas of a service on one host share its SQLite file. These run several real processes on
 * one fresh file: they must all start (migrations race), and read-then-write transactions taken
 * IMMEDIATE must neither fail nor lose an update.
 */

const PROCESSES = 4;
const INCREMENTS = 150;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "store-test-"));
  const migrations = join(dir, "drizzle");
  mkdirSync(join(migrations, "meta"), { recursive: true });
  const entries = ["0000_table", "0001_row"].map((tag, idx) => ({ idx, version: "6", when: 1_700_000_000_000 + idx, tag, breakpoints: true }));
  writeFileSync(join(migrations, "meta", "_journal.json"), JSON.stringify({ version: "7", dialect: "sqlite", entries }));
  writeFileSync(join(migrations, "0000_table.sql"), "CREATE TABLE counters (name text PRIMARY KEY, value integer NOT NULL);");
  // Applied twice, this would fail on the primary key: the test would see it.
  writeFileSync(join(migrations, "0001_row.sql"), "INSERT INTO counters VALUES ('hits', 0);");
  writeFileSync(
    join(dir, "replica.ts"),
    `import { openStore } from ${JSON.stringify(join(import.meta.dir, "store.ts"))};
const [path, migrations, startAt, increments] = process.argv.slice(2);
await Bun.sleep(Math.max(0, Number(startAt) - Date.now()));
const { sqlite } = openStore(path, {}, migrations);
const read = sqlite.query("SELECT value FROM counters WHERE name = 'hits'");
const write = sqlite.query("UPDATE counters SET value = ? WHERE name = 'hits'");
const increment = sqlite.transaction(() => write.run(read.get().value + 1));
for (let i = 0; i < Number(increments); i++) increment.immediate();
sqlite.close();
`,
  );
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

test("processes opening one fresh file at once all migrate it, once, and lose no read-then-write update", async () => {
  const path = join(dir, "shared.db");
  const startAt = Date.now() + 500;
  const replicas = Array.from({ length: PROCESSES }, () =>
    Bun.spawn(["bun", join(dir, "replica.ts"), path, join(dir, "drizzle"), String(startAt), String(INCREMENTS)], { stdout: "pipe", stderr: "pipe" }),
  );
  const exits = await Promise.all(replicas.map(async (p) => ({ code: await p.exited, stderr: await new Response(p.stderr).text() })));
  expect(exits).toEqual(Array.from({ length: PROCESSES }, () => ({ code: 0, stderr: "" })));

  const db = new Database(path, { readonly: true });
  expect(db.query("SELECT count(*) AS n FROM __drizzle_migrations").get()).toEqual({ n: 2 });
  expect(db.query("SELECT name, value FROM counters").all()).toEqual([{ name: "hits", value: PROCESSES * INCREMENTS }]);
  db.close();
});
