import { sql } from "drizzle-orm";
import { bothEngines, table, type NewRow, type Row } from "@payaccept/platform/table";
import type { AnyReasonParams, Reason, ReceiptCustomer, ReceiptItem, ReceiptKind, TaxationSystem } from "@payaccept/contracts";

/**
 * PENDING: to be sent to the register. SENT: the register accepted it and is fiscalising it (we
 * ask for its state). REGISTERED: fiscalised. FAILED: the attempts ran out, or the register refused
 * it in a way only a person can cure; an operator resends.
 */
export const RECEIPT_ROW_STATUSES = ["PENDING", "SENT", "REGISTERED", "FAILED"] as const;
export type ReceiptRowStatus = (typeof RECEIPT_ROW_STATUSES)[number];

/**
 * One fiscal receipt, and at the same time its outbox row: the sender works through the rows that
 * are due. Times are epoch ms, money kopecks.
 */
export const receipts = table(
  "receipts",
  (k) => ({
    id: k.text("id").primaryKey(),
    /**
     * What the receipt is for, unique so that no event, redelivery or restart makes two: `sale:<paymentId>`,
     * `refund:<paymentId>:<refunded total after it>` (docs/receipts.md, "Never two receipts").
     */
    dedupeKey: k.text("dedupe_key").notNull().unique(),
    /** The stream event that made it (its eventId), for tracing. */
    sourceEventId: k.text("source_event_id").notNull(),
    paymentId: k.text("payment_id").notNull(),
    shopId: k.text("shop_id").notNull(),
    orderId: k.text("order_id").notNull(),
    refundId: k.text("refund_id"),
    kind: k.text("kind").$type<ReceiptKind>().notNull(),
    isTest: k.boolean("is_test").notNull(),
    status: k.text("status", { enum: RECEIPT_ROW_STATUSES }).notNull(),
    amountKopecks: k.bigint("amount_kopecks").notNull(),
    customer: k.json("customer").$type<ReceiptCustomer>().notNull(),
    taxation: k.text("taxation").$type<TaxationSystem>().notNull(),
    items: k.json("items").$type<ReceiptItem[]>().notNull(),
    /** A refund receipt: how many kopecks it took back from each line of the sale receipt, by position. */
    perLine: k.json("per_line").$type<number[]>(),
    /** Bumped when the register refuses a document: the next one needs a new external id. */
    generation: k.bigint("generation").notNull().default(0),
    attempts: k.bigint("attempts").notNull().default(0),
    /** When the sender next works on it; null once REGISTERED or FAILED. */
    nextAttemptAt: k.bigint("next_attempt_at"),
    /** Why the last attempt did not register it: a reason of the catalogue and its parameters, never text. */
    lastErrorCode: k.text("last_error_code").$type<Reason>(),
    lastErrorParams: k.json("last_error_params").$type<AnyReasonParams>(),
    /** The register's id of the current document. */
    registerDocumentId: k.text("register_document_id"),
    fiscalDocumentNumber: k.bigint("fiscal_document_number"),
    fiscalSign: k.text("fiscal_sign"),
    fnNumber: k.text("fn_number"),
    registeredAt: k.bigint("registered_at"),
    createdAt: k.bigint("created_at").notNull(),
    updatedAt: k.bigint("updated_at").notNull(),
  }),
  (t, x) => [
    x.index("receipts_due_idx").on(t.nextAttemptAt),
    x.index("receipts_payment_idx").on(t.paymentId, t.createdAt),
    // The operators' list of what needs them (receipt:list --failed), the latest first.
    x.index("receipts_failed_idx").on(t.updatedAt).where(sql`${t.status} = 'FAILED'`),
  ],
);
export type ReceiptRow = Row<typeof receipts>;
export type NewReceiptRow = NewRow<typeof receipts>;

/** The receipts service's tables; schema.sqlite.ts and schema.pg.ts hand each engine its own. */
export const tables = bothEngines({ receipts });
