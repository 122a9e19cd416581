import { expect, test } from "bun:test";
import { schemaDrift } from "@payaccept/platform/schema-drift";
import { tables } from "./schema.ts";

test("the tables are the same on SQLite and PostgreSQL: columns, kinds, defaults, keys, indexes and their conditions, foreign keys, CHECKs and triggers", () => {
  expect(schemaDrift(tables)).toEqual([]);
});
