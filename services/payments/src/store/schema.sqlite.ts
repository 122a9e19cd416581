import { engineTables } from "@payaccept/platform/table";
import { tables } from "./schema.ts";

/** payments' tables on SQLite (schema.ts defines them; drizzle-kit reads this file's exports). */
export const schema = engineTables(tables, "sqlite");
export const { payments, statusCounts, refunds, dailyStats, dailyRefunds, outbox, savedMethods, idempotencyKeys } = schema;
