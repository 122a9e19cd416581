import { expect, test } from "bun:test";
import { schemaDrift } from "@payaccept/platform";
import { schema as pgSchema } from "./schema.pg.ts";
import { schema as sqliteSchema } from "./schema.sqlite.ts";

test("the dashboard's PostgreSQL schema has the same tables, columns, keys and indexes as its SQLite one", () => {
  expect(schemaDrift(sqliteSchema, pgSchema)).toEqual([]);
});
