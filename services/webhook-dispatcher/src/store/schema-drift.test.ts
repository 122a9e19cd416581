import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { schemaDrift } from "@payaccept/platform";
import { schema as pgSchema } from "./schema.pg.ts";
import { schema } from "./schema.sqlite.ts";

test("the PostgreSQL schema has the same tables, columns, kinds, keys and indexes as the SQLite one", () => {
  expect(schemaDrift(schema, pgSchema)).toEqual([]);
});

test("the PostgreSQL migrations name no schema, so that they follow WEBHOOKS_DATABASE_URL's ?schema=", () => {
  const folder = join(import.meta.dir, "../../drizzle-pg");
  const named = readdirSync(folder)
    .filter((f) => f.endsWith(".sql"))
    .filter((f) => readFileSync(join(folder, f), "utf8").includes('"public".'));
  expect(named).toEqual([]);
});
