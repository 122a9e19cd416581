import { engineTables } from "@payaccept/platform/table";
import { tables } from "./schema.ts";

/** The directory's tables on PostgreSQL (schema.ts defines them; drizzle-kit reads this file's exports). */
export const schema = engineTables(tables, "pg");
export const { accounts, shops, apiKeys, auditEvents, accountDetails } = schema;
