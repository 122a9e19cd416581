import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import type { CashRegisterOperation } from "@payaccept/contracts";

/**
 * One fiscal document per external id (the caller's idempotency key). The fiscal fields are set
 * together when the document is fiscalised; the document number (ФД) is unique and gapless.
 */
export const documents = sqliteTable(
  "documents",
  {
    id: text("id").primaryKey(),
    externalId: text("external_id").notNull().unique(),
    operation: text("operation").$type<CashRegisterOperation>().notNull(),
    /** The request as received, compared on a repeat with the same external id. */
    body: text("body").notNull(),
    status: text("status", { enum: ["wait", "done", "fail"] }).notNull(),
    error: text("error"),
    /** When a waiting document is fiscalised (epoch ms). */
    dueAt: integer("due_at").notNull(),
    fiscalDocumentNumber: integer("fiscal_document_number").unique(),
    fiscalSign: text("fiscal_sign"),
    registeredAt: integer("registered_at"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("documents_waiting").on(t.status, t.dueAt)],
);
export type DocumentRow = typeof documents.$inferSelect;

export const schema = { documents };
