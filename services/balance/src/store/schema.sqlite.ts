import { engineTables } from "@payaccept/platform/table";
import { tables } from "./schema.ts";

/** The ledger's tables on SQLite (schema.ts defines them; drizzle-kit reads this file's exports). */
export const schema = engineTables(tables, "sqlite");
export const { appliedEvents, frozenBuckets, accounts, refunds, refundHolds, appliedRefundEvents, payouts, paymentOrders, payoutBatches, bankStatements, payoutEvents, payoutSchedules, bankTokens } = schema;
