import { afterAll, afterEach, beforeAll } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DatabaseChoice } from "@payaccept/platform";
import { startPostgres, type Postgres } from "./postgres.ts";

/** The engines a repository's tests run on: `describe.each(ENGINES)("... (%s)", (engine) => ...)`. */
export const ENGINES = ["sqlite", "postgres"] as const;
export type Engine = (typeof ENGINES)[number];

/**
 * Cases of a stack test that do not exercise the store in a way the engines differ on (input
 * checks, rendering, a read the other cases already make): defined in the SQLite run only, so the
 * PostgreSQL run of a long file stays short. The PostgreSQL run does not have them at all (no skip).
 * The caller says in a comment why its cases are here.
 */
export function sqliteRunOnly(engine: Engine, define: () => void): void {
  if (engine === "sqlite") define();
}

/**
 * Fresh stores for the calling test file: one temporary folder and, when the file has a
 * PostgreSQL case, one throwaway PostgreSQL started on first use and stopped after the file.
 * `next(engine, file)` gives a new SQLite file, or a new schema of that server, each call.
 */
export function storesPerFile(): { next: (engine: Engine, file: string) => Promise<DatabaseChoice> } {
  let dir: string | undefined;
  let pg: Promise<Postgres> | undefined;
  let n = 0;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "stores-"));
  });
  afterAll(async () => {
    if (pg) await (await pg).stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return {
    async next(engine, file) {
      n++;
      if (engine === "sqlite") return { engine, path: join(dir!, `${n}-${file}`) };
      const server = await (pg ??= startPostgres());
      return { engine, variable: "TEST_DATABASE_URL", url: server.url, schema: `t${n}`, pool: 5, statementTimeoutMs: 5000, connectTimeoutMs: 5000 };
    },
  };
}

/**
 * A repository's stores for the calling test file, each closed after its test: `open(engine)` a
 * fresh one, `replicas(engine)` two on one database, as two replicas on two hosts have. Two
 * bun:sqlite connections in one process would block the thread on each other's file lock (SQLite
 * replicas are processes), so on SQLite one store serves both and its async callers still race.
 */
export function repositoriesPerFile<R extends { close(): Promise<void> }>(open: (choice: DatabaseChoice) => Promise<R>, file: string) {
  const stores = storesPerFile();
  const opened: R[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((r) => r.close()));
  });
  const track = (r: R) => (opened.push(r), r);
  return {
    /** The underlying choices, for a case that opens its own (an import from another engine's file). */
    stores,
    track,
    open: async (engine: Engine) => track(await open(await stores.next(engine, file))),
    replicas: async (engine: Engine): Promise<[R, R]> => {
      const choice = await stores.next(engine, file);
      const first = track(await open(choice));
      return [first, engine === "sqlite" ? first : track(await open(choice))];
    },
  };
}
