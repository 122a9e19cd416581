import { expect, test } from "bun:test";
import { schemaDrift } from "@payaccept/platform";
import * as pgSchema from "./schema.pg.ts";
import * as sqliteSchema from "./schema.ts";

test("the receipts' PostgreSQL schema has the same columns, keys and indexes as their SQLite one", () => {
  expect(schemaDrift(sqliteSchema, pgSchema)).toEqual([]);
});
