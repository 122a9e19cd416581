import { cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A copy of payments' migrations folder that stops after the first `count` migrations: a store
 * opened with it is the store as it was before the later ones, for testing (and timing) them on
 * existing data.
 */
export function migrationsUpTo(count: number): string {
  const dir = join(mkdtempSync(join(tmpdir(), "payments-migrations-")), "drizzle");
  cpSync(join(import.meta.dir, "../drizzle"), dir, { recursive: true });
  const journalPath = join(dir, "meta/_journal.json");
  const journal = JSON.parse(readFileSync(journalPath, "utf8"));
  writeFileSync(journalPath, JSON.stringify({ ...journal, entries: journal.entries.slice(0, count) }));
  return dir;
}
