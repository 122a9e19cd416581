import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import type { AnyReasonParams, Reason, ReceiptCustomer, ReceiptItem, ReceiptKind, TaxationSystem } from "@payaccept/contracts";

/**
 * PENDING: to be sent to the register. SENT: the register accepted it and is fiscalising it (we
 * ask for its state). REGISTERED: fiscalised. FAILED: the attempts ran out; an operator resends.
 */
export const RECEIPT_ROW_STATUSES = ["PENDING", "SENT", "REGISTERED", "FAILED"] as const;
export type ReceiptRowStatus = (typeof RECEIPT_ROW_STATUSES)[number];

/**
 * One fiscal receipt, and at the same time its outbox row: the sender works through the rows that
 * are due. Times are epoch ms, money kopecks.
 */
export const receipts = sqliteTable(
  "receipts",
  {
    id: text("id").primaryKey(),
    /**
     * What the receipt is for, unique so that no event, redelivery or restart makes two: `sale:<paymentId>`,
     * `refund:<paymentId>:<refunded total after it>` (docs/receipts.md, "Never two receipts").
     */
    dedupeKey: text("dedupe_key").notNull().unique(),
    /** The stream event that made it (its eventId), for tracing. */
    sourceEventId: text("source_event_id").notNull(),
    paymentId: text("payment_id").notNull(),
    shopId: text("shop_id").notNull(),
    orderId: text("order_id").notNull(),
    refundId: text("refund_id"),
    kind: text("kind").$type<ReceiptKind>().notNull(),
    isTest: integer("is_test", { mode: "boolean" }).notNull(),
    status: text("status", { enum: RECEIPT_ROW_STATUSES }).notNull(),
    amountKopecks: integer("amount_kopecks").notNull(),
    customer: text("customer", { mode: "json" }).$type<ReceiptCustomer>().notNull(),
    taxation: text("taxation").$type<TaxationSystem>().notNull(),
    items: text("items", { mode: "json" }).$type<ReceiptItem[]>().notNull(),
    /** A refund receipt: how many kopecks it took back from each line of the sale receipt, by position. */
    perLine: text("per_line", { mode: "json" }).$type<number[]>(),
    /** Bumped when the register refuses a document: the next one needs a new external id. */
    generation: integer("generation").notNull().default(0),
    attempts: integer("attempts").notNull().default(0),
    /** When the sender next works on it; null once REGISTERED or FAILED. */
    nextAttemptAt: integer("next_attempt_at"),
    /** Why the last attempt did not register it: a reason of the catalogue and its parameters, never text. */
    lastErrorCode: text("last_error_code").$type<Reason>(),
    lastErrorParams: text("last_error_params", { mode: "json" }).$type<AnyReasonParams>(),
    /** The register's id of the current document. */
    registerDocumentId: text("register_document_id"),
    fiscalDocumentNumber: integer("fiscal_document_number"),
    fiscalSign: text("fiscal_sign"),
    fnNumber: text("fn_number"),
    registeredAt: integer("registered_at"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [index("receipts_due_idx").on(t.nextAttemptAt), index("receipts_payment_idx").on(t.paymentId, t.createdAt)],
);
export type ReceiptRow = typeof receipts.$inferSelect;
export type NewReceiptRow = typeof receipts.$inferInsert;

export const schema = { receipts };
