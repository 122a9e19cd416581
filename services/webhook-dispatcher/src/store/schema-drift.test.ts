import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { schemaDrift } from "@payaccept/platform/schema-drift";
import { tables } from "./schema.ts";

test("the tables are the same on SQLite and PostgreSQL: columns, kinds, defaults, keys, indexes and their conditions, foreign keys, CHECKs and triggers", () => {
  expect(schemaDrift(tables)).toEqual([]);
});

test("the PostgreSQL migrations name no schema, so that they follow WEBHOOKS_DATABASE_URL's ?schema=", () => {
  const folder = join(import.meta.dir, "../../drizzle-pg");
  const named = readdirSync(folder)
    .filter((f) => f.endsWith(".sql"))
    .filter((f) => readFileSync(join(folder, f), "utf8").includes('"public".'));
  expect(named).toEqual([]);
});
