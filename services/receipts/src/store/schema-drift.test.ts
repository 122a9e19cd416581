import { expect, test } from "bun:test";
import { schemaDrift } from "@payaccept/platform";
import { schema as pgSchema } from "./schema.pg.ts";
import { schema as sqliteSchema } from "./schema.sqlite.ts";

test("the receipts' PostgreSQL schema has the same columns, keys and indexes as their SQLite one", () => {
  expect(schemaDrift(sqliteSchema, pgSchema)).toEqual([]);
});
