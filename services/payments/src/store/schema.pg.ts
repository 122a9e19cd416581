import { engineTables } from "@payaccept/platform/table";
import { tables } from "./schema.ts";

/** payments' tables on PostgreSQL (schema.ts defines them; drizzle-kit reads this file's exports). */
export const schema = engineTables(tables, "pg");
export const { payments, statusCounts, refunds, dailyStats, dailyRefunds, outbox, savedMethods, idempotencyKeys } = schema;
