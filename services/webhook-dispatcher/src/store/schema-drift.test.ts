import { expect, test } from "bun:test";
import { schemaDrift } from "@payaccept/platform";
import { schema } from "./schema.ts";
import { pgSchema } from "./schema.pg.ts";

test("the PostgreSQL schema has the same tables, columns, kinds, keys and indexes as the SQLite one", () => {
  expect(schemaDrift(schema, pgSchema)).toEqual([]);
});
