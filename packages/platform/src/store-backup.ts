import { Database } from "bun:sqlite";
import { existsSync, mkdirSync, renameSync, rmSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { DomainError, type StoreCopy } from "@payaccept/contracts";

/**
 * The stores this process opened, by what a backup needs of them (docs/operations-database.md,
 * "Backups"): a SQLite file's path, or the variable of a PostgreSQL one. Registered by openStore
 * and openPgStore, so no service wires its own backup.
 */
const opened = new Map<string, { engine: "sqlite"; path: string } | { engine: "postgres"; variable: string }>();

export function registerBackupSource(source: { engine: "sqlite"; path: string } | { engine: "postgres"; variable: string }): () => void {
  const key = source.engine === "sqlite" ? basename(source.path) : source.variable;
  opened.set(key, source);
  return () => opened.delete(key);
}

async function sha256Of(path: string): Promise<string> {
  const hasher = new Bun.CryptoHasher("sha256");
  for await (const chunk of Bun.file(path).stream()) hasher.update(chunk);
  return hasher.digest("hex");
}

/**
 * Copies the store `file` (its name under DATA_DIR) into `<dir>/<label>/<file>`: `VACUUM INTO` on
 * a read-only connection of its own, one read transaction, so the copy is the store as one commit
 * left it while the service goes on writing (WAL: a reader never blocks the writer), compacted,
 * with no WAL beside it. Written aside and renamed, so a file under the final name is always
 * whole: a copy of the call finds it and answers it. A store on PostgreSQL answers its variable
 * (pg_basebackup and the WAL archive copy it).
 */
export async function copyStore(file: string, label: string, dir: string): Promise<StoreCopy> {
  const pg = [...opened.values()].find((s) => s.engine === "postgres");
  const source = opened.get(file);
  if (!source && pg?.engine === "postgres") return { engine: "postgres", variable: pg.variable };
  if (source?.engine !== "sqlite") throw new DomainError("SERVICE_UNAVAILABLE", { service: "store" });
  const target = join(dir, label, file);
  const started = performance.now();
  if (!existsSync(target)) {
    mkdirSync(join(dir, label), { recursive: true });
    const partial = `${target}.partial`;
    rmSync(partial, { force: true });
    const db = new Database(source.path, { readonly: true });
    try {
      db.exec("PRAGMA busy_timeout = 5000");
      db.run("VACUUM INTO ?", [partial]);
    } finally {
      db.close();
    }
    renameSync(partial, target);
  }
  return { engine: "sqlite", path: target, bytes: statSync(target).size, sha256: await sha256Of(target), tookMs: Math.round(performance.now() - started) };
}
