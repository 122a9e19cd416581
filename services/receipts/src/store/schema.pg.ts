import { bigint, boolean, index, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import type { AnyReasonParams, Reason, ReceiptCustomer, ReceiptItem, ReceiptKind, TaxationSystem } from "@payaccept/contracts";
import { RECEIPT_ROW_STATUSES } from "./schema.ts";

/**
 * The receipts table on PostgreSQL: the same columns, keys and indexes as schema.ts (whose
 * comments say what each holds; schema-drift.test.ts keeps the two equal). Kopecks and epoch ms
 * are bigint, as SQLite's INTEGER is 64-bit; the JSON columns are jsonb.
 */
const int = (name: string) => bigint(name, { mode: "number" });

export const receipts = pgTable(
  "receipts",
  {
    id: text("id").primaryKey(),
    dedupeKey: text("dedupe_key").notNull().unique(),
    sourceEventId: text("source_event_id").notNull(),
    paymentId: text("payment_id").notNull(),
    shopId: text("shop_id").notNull(),
    orderId: text("order_id").notNull(),
    refundId: text("refund_id"),
    kind: text("kind").$type<ReceiptKind>().notNull(),
    isTest: boolean("is_test").notNull(),
    status: text("status", { enum: RECEIPT_ROW_STATUSES }).notNull(),
    amountKopecks: int("amount_kopecks").notNull(),
    customer: jsonb("customer").$type<ReceiptCustomer>().notNull(),
    taxation: text("taxation").$type<TaxationSystem>().notNull(),
    items: jsonb("items").$type<ReceiptItem[]>().notNull(),
    perLine: jsonb("per_line").$type<number[]>(),
    generation: int("generation").notNull().default(0),
    attempts: int("attempts").notNull().default(0),
    nextAttemptAt: int("next_attempt_at"),
    lastErrorCode: text("last_error_code").$type<Reason>(),
    lastErrorParams: jsonb("last_error_params").$type<AnyReasonParams>(),
    registerDocumentId: text("register_document_id"),
    fiscalDocumentNumber: int("fiscal_document_number"),
    fiscalSign: text("fiscal_sign"),
    fnNumber: text("fn_number"),
    registeredAt: int("registered_at"),
    createdAt: int("created_at").notNull(),
    updatedAt: int("updated_at").notNull(),
  },
  (t) => [index("receipts_due_idx").on(t.nextAttemptAt), index("receipts_payment_idx").on(t.paymentId, t.createdAt)],
);

export const schema = { receipts };
