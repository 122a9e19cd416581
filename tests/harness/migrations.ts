import { cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";

/**
 * A copy of a service's migrations folder (`drizzle/` or `drizzle-pg/`) that stops before the
 * migration named `tag` (its name without the number, which merges may change): a store opened
 * with it is the store as it was before that migration, for testing (and timing) it on existing data.
 */
export function migrationsBefore(folder: string, tag: string): string {
  const dir = join(mkdtempSync(join(tmpdir(), "migrations-")), basename(folder));
  cpSync(folder, dir, { recursive: true });
  const journalPath = join(dir, "meta/_journal.json");
  const journal = JSON.parse(readFileSync(journalPath, "utf8"));
  const index = journal.entries.findIndex((e: { tag: string }) => e.tag.replace(/^\d+_/, "") === tag);
  if (index < 0) throw new Error(`no migration named ${tag} in ${folder}`);
  writeFileSync(journalPath, JSON.stringify({ ...journal, entries: journal.entries.slice(0, index) }));
  return dir;
}
