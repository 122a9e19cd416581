import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { CARD_BRANDS, PAYMENT_METHODS, PROVIDER_SESSION_KINDS, PROVIDER_SESSION_STATUSES, REVOKED_BY, SAVED_METHOD_STATUSES, type CardBrand } from "@payaccept/contracts";
import { CHARGE_PROFILES, type ChargeProfile } from "../test-cards.ts";

/** What a saved card is known by (never its number), kept between the card form and its 3-D Secure step. */
export type CardOnFile = {
  brand: CardBrand;
  last4: string;
  expMonth: number;
  expYear: number;
  /** How charges with the card's token behave (the test card's rule, docs/acquirer-emulator.md). */
  profile: ChargeProfile;
};

/**
 * One session with a buyer (PAYMENT), a merchant-initiated charge with a saved method (CHARGE) or an
 * SBP account binding without a payment (BINDING). Card data is never a column: the outcome of a
 * card form is decided while handling the request and only the result is kept.
 */
export const sessions = sqliteTable(
  "sessions",
  {
    id: text("id").primaryKey(),
    /** The caller's id: payments' payment id, a charge's id, or a binding's id. */
    merchantPaymentId: text("merchant_payment_id").notNull(),
    kind: text("kind", { enum: PROVIDER_SESSION_KINDS })
      .notNull()
      .default("PAYMENT"),
    method: text("method", { enum: PAYMENT_METHODS }).notNull(),
    /** A binding's is 0; a hold's is the amount held. */
    amountKopecks: integer("amount_kopecks").notNull(),
    description: text("description"),
    returnUrl: text("return_url").notNull(),
    callbackUrl: text("callback_url").notNull(),
    /**
     * OPEN → PAID | DECLINED; CARD may pass through CHALLENGE (waiting for the 3-D Secure code), a
     * hold through AUTHORIZED (→ PAID when captured, VOIDED when released), a binding ends BOUND.
     * CANCELED: the buyer switched to another method; a repeated open of the session reopens it.
     */
    status: text("status", { enum: PROVIDER_SESSION_STATUSES }).notNull(),
    declineReason: text("decline_reason"),
    paidAt: integer("paid_at"),
    /** The buyer's deadline (epoch ms): a card session takes no card data after it. */
    expiresAt: integer("expires_at"),
    /** The buyer agreed to save the method (a card token, or an SBP binding if the payer consents too). */
    saveMethod: integer("save_method", { mode: "boolean" }).notNull().default(false),
    /** Two stages: authorise and hold, capture or void later. */
    hold: integer("hold", { mode: "boolean" }).notNull().default(false),
    /** When the acquirer voids an AUTHORIZED hold by itself. */
    holdExpiresAt: integer("hold_expires_at"),
    /** What was taken: the amount once PAID, or the captured part of a hold. */
    capturedKopecks: integer("captured_kopecks"),
    merchantName: text("merchant_name"),
    /** The method this session saved (a token, a binding) or, for a CHARGE, charged. */
    methodId: text("method_id"),
    /** A card to save, between the card form and its 3-D Secure step (JSON CardOnFile). */
    pendingCard: text("pending_card", { mode: "json" }).$type<CardOnFile>(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [uniqueIndex("sessions_payment_method").on(t.merchantPaymentId, t.method), index("sessions_hold_due").on(t.status, t.holdExpiresAt)],
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

/**
 * Saved methods: card tokens and SBP account bindings. REVOKED by the merchant (API), the payer (the
 * bank app's list of bindings) or the issuer (a test card's rule); EXPIRED when the issuer reports
 * it (a card's own expiry passing is read from its columns).
 */
export const methods = sqliteTable(
  "methods",
  {
    id: text("id").primaryKey(),
    method: text("method", { enum: PAYMENT_METHODS }).notNull(),
    status: text("status", { enum: SAVED_METHOD_STATUSES }).notNull(),
    revokedBy: text("revoked_by", { enum: REVOKED_BY }),
    revokedAt: integer("revoked_at"),
    cardBrand: text("card_brand", { enum: CARD_BRANDS }),
    cardLast4: text("card_last4"),
    cardExpMonth: integer("card_exp_month"),
    cardExpYear: integer("card_exp_year"),
    /** How charges with it behave: a test card's rule; bindings always approve. */
    profile: text("profile", { enum: CHARGE_PROFILES }).notNull(),
    /** SBP: the bank app's payer who consented, who alone may revoke it there. */
    payerId: text("payer_id"),
    merchantName: text("merchant_name"),
    /** The session that saved it: its callback URL and the caller's id carry a revocation by the payer. */
    sessionId: text("session_id")
      .notNull()
      .references(() => sessions.id),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("methods_payer").on(t.payerId)],
);
export type MethodRow = typeof methods.$inferSelect;

export const schema = { sessions, refunds, callbacks, methods };
