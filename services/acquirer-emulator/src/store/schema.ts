import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/**
 * One payment attempt registered by payments. Card data is never a column: the outcome of a card
 * form is decided while handling the request and only the result is kept.
 */
export const sessions = sqliteTable(
  "sessions",
  {
    id: text("id").primaryKey(),
    merchantPaymentId: text("merchant_payment_id").notNull(),
    method: text("method", { enum: ["SBP", "CARD"] }).notNull(),
    amountKopecks: integer("amount_kopecks").notNull(),
    description: text("description"),
    returnUrl: text("return_url").notNull(),
    callbackUrl: text("callback_url").notNull(),
    /**
     * OPEN → PAID | DECLINED; CARD may pass through CHALLENGE (waiting for the 3-D Secure code).
     * CANCELED: the buyer switched to another method; a repeated open of the session reopens it.
     */
    status: text("status", { enum: ["OPEN", "CHALLENGE", "PAID", "DECLINED", "CANCELED"] }).notNull(),
    declineReason: text("decline_reason"),
    paidAt: integer("paid_at"),
    /** The buyer's deadline (epoch ms): a card session takes no card data after it. */
    expiresAt: integer("expires_at"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [uniqueIndex("sessions_payment_method").on(t.merchantPaymentId, t.method)],
);
export type SessionRow = typeof sessions.$inferSelect;

/**
 * Refunds of a paid session, one per (session, merchant's refund id): a repeated refund request
 * returns its row. The SUCCEEDED ones add up to at most the session's amount; a FAILED one
 * (declined) returned nothing.
 */
export const refunds = sqliteTable(
  "refunds",
  {
    id: text("id").primaryKey(),
    sessionId: text("session_id")
      .notNull()
      .references(() => sessions.id),
    /** Null only for the whole refunds made before the protocol carried the merchant's id. */
    merchantRefundId: text("merchant_refund_id"),
    amountKopecks: integer("amount_kopecks").notNull(),
    status: text("status", { enum: ["SUCCEEDED", "FAILED"] }).notNull(),
    reason: text("reason"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [uniqueIndex("refunds_session_merchant_refund").on(t.sessionId, t.merchantRefundId)],
);
export type RefundRow = typeof refunds.$inferSelect;

/**
 * Outbox of signed callbacks. The body is fixed when the outcome is recorded (same transaction);
 * each attempt signs it afresh with the current timestamp.
 */
export const callbacks = sqliteTable(
  "callbacks",
  {
    id: text("id").primaryKey(),
    sessionId: text("session_id")
      .notNull()
      .references(() => sessions.id),
    url: text("url").notNull(),
    body: text("body").notNull(),
    state: text("state", { enum: ["pending", "delivered", "abandoned"] }).notNull(),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: integer("next_attempt_at").notNull(),
    lastError: text("last_error"),
    createdAt: integer("created_at").notNull(),
    deliveredAt: integer("delivered_at"),
  },
  (t) => [index("callbacks_due").on(t.state, t.nextAttemptAt)],
);
export type CallbackRow = typeof callbacks.$inferSelect;

export const schema = { sessions, refunds, callbacks };
