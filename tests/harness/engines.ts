import { afterAll, beforeAll } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DatabaseChoice } from "@payaccept/platform";
import { startPostgres, type Postgres } from "./postgres.ts";

/** The engines a repository's tests run on: `describe.each(ENGINES)("... (%s)", (engine) => ...)`. */
export const ENGINES = ["sqlite", "postgres"] as const;
export type Engine = (typeof ENGINES)[number];

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
