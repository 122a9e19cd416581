import { z } from "zod";
import { IsoDateTime, PaymentMethod, Uuid } from "./primitives.ts";
import { ReasonCode, ReasonParams } from "./reasons.ts";

/**
 * Wire shapes of the provider protocol between payments and an acquirer (docs/acquirer-protocol.md).
 * Payments is the client (its provider port); the acquirer emulator is the server.
 */

/**
 * Development defaults of the shared secrets, used by both sides when the variables are unset so the
 * stack works out of the box; each side logs a warning at start while it uses them.
 */
export const DEV_ACQUIRER_API_KEY = "dev-acquirer-api-key";
export const DEV_ACQUIRER_CALLBACK_SECRET = "dev-acquirer-callback-secret";

/** Callbacks older or newer than this (by X-Acquirer-Timestamp) are refused as replays. */
export const PROVIDER_CALLBACK_MAX_SKEW_MS = 5 * 60 * 1000;

/** POST /v1/sessions. Idempotent by (merchantPaymentId, method). */
export const ProviderSessionRequest = z.object({
  merchantPaymentId: Uuid,
  method: PaymentMethod,
  amountKopecks: z.number().int().positive(),
  description: z.string().nullable(),
  returnUrl: z.string(),
  callbackUrl: z.string(),
  /**
   * The buyer's deadline. A card session refuses card data after it; an SBP QR ignores it, since a
   * fast payment may land late (spec §3). A repeat for a canceled session reopens it with this deadline.
   */
  expiresAt: IsoDateTime.optional(),
  /**
   * The buyer agreed (on our payment page) to save the method: a paid card session yields a card
   * token, an SBP session asks the payer in the bank app to bind the account (pay and bind).
   * A repeat while the session is still open sets the flag anew (the buyer changed their mind).
   */
  saveMethod: z.boolean().default(false),
  /** Two stages: authorise and hold the amount, capture or void it later. Cards only; SBP is refused. */
  hold: z.boolean().default(false),
  /** The shop's name, shown by the bank app where the payer consents to a binding. */
  merchantName: z.string().max(255).nullable().default(null),
});
export type ProviderSessionRequest = z.input<typeof ProviderSessionRequest>;

export const ProviderSession = z.discriminatedUnion("method", [
  z.object({ sessionId: z.string().min(1), method: z.literal("SBP"), qrPayload: z.string().min(1), deepLink: z.string().min(1) }),
  z.object({ sessionId: z.string().min(1), method: z.literal("CARD"), formAction: z.string().min(1) }),
]);
export type ProviderSession = z.infer<typeof ProviderSession>;

/**
 * POST /v1/sessions/{sessionId}/refund. Idempotent by (session, merchantRefundId): a repeat returns
 * the first answer. Several refunds of one session may add up to its amount.
 */
export const ProviderRefundRequest = z.object({ amountKopecks: z.number().int().positive(), merchantRefundId: Uuid });
/** FAILED: the acquirer declined the refund (reason says why); nothing was returned to the buyer. */
export const ProviderRefund = z.object({ refundId: z.string(), status: z.enum(["SUCCEEDED", "FAILED"]), reason: z.string().nullable().optional() });
export type ProviderRefund = z.infer<typeof ProviderRefund>;

/**
 * POST /v1/sessions/{sessionId}/cancel: the session can no longer be paid (the buyer switched to
 * another method). Idempotent; refused with 409 once the session is paid.
 */
export const ProviderCancel = z.object({ sessionId: z.string(), status: z.literal("CANCELED") });
export type ProviderCancel = z.infer<typeof ProviderCancel>;

/**
 * Non-2xx replies of the acquirer: `{ error }` at least. The emulator answers in the spec's Error
 * shape, whose `message` (the words), `code` (a reason of the catalogue) and `params` a receiver
 * reads when present; a code it does not know is dropped, not a failure to read the reply.
 */
export const ProviderErrorBody = z.object({
  error: z.string(),
  message: z.union([z.string(), z.array(z.string())]).optional(),
  code: ReasonCode.optional().catch(undefined),
  params: ReasonParams.optional(),
});

/**
 * Why the acquirer declined, voided or revoked something: the `reason` of a session and of its
 * callbacks. A receiver maps the ones it knows to the catalogue and treats any other as a plain decline.
 */
export const PROVIDER_REASONS = [
  "declined_by_buyer",
  "card_declined",
  "3ds_failed",
  "insufficient_funds",
  "card_expired",
  "method_revoked",
  "declined_by_payer",
  "voided_by_merchant",
  "hold_expired",
] as const;
export type ProviderReason = (typeof PROVIDER_REASONS)[number];

export const CARD_BRANDS = ["VISA", "MASTERCARD", "MIR", "UNIONPAY", "OTHER"] as const;
export const CardBrand = z.enum(CARD_BRANDS);
export type CardBrand = z.infer<typeof CardBrand>;

/** What may be said of a card: never its number, only the brand, the last 4 digits and the expiry. */
export const ProviderCardDescription = z.object({
  brand: CardBrand,
  last4: z.string().regex(/^\d{4}$/),
  expMonth: z.number().int().min(1).max(12),
  expYear: z.number().int().min(2000).max(2099),
});
export type ProviderCardDescription = z.infer<typeof ProviderCardDescription>;

/**
 * A saved method at the acquirer: a card token (like T-Bank's RebillId) or an SBP account binding
 * (like T-Bank's AccountToken). `methodId` is what a charge names. EXPIRED: the card's expiry passed
 * (or its issuer reports it expired); REVOKED: by the merchant, the payer (in the bank app) or the issuer.
 */
export const SAVED_METHOD_STATUSES = ["ACTIVE", "EXPIRED", "REVOKED"] as const;
/** Who revoked a saved method: the merchant (API), the payer (bank app) or the card's issuer. */
export const REVOKED_BY = ["MERCHANT", "PAYER", "ISSUER"] as const;

export const ProviderSavedMethod = z.object({
  methodId: z.string().min(1),
  method: PaymentMethod,
  status: z.enum(SAVED_METHOD_STATUSES),
  card: ProviderCardDescription.nullable(),
  /** SBP: the payer's bank, as a buyer recognises it. */
  sbp: z.object({ bankName: z.string() }).nullable(),
  createdAt: IsoDateTime,
  revokedAt: IsoDateTime.nullable(),
  revokedBy: z.enum(REVOKED_BY).nullable(),
});
export type ProviderSavedMethod = z.infer<typeof ProviderSavedMethod>;

/**
 * The statuses of an acquirer session. OPEN: waiting for the buyer; CHALLENGE: waiting for the
 * buyer's 3-D Secure code (for a charge: the bank asks for authentication, see authenticationUrl);
 * AUTHORIZED: held (two stages), waiting for capture or void; PAID: the money was taken (for a
 * hold: captured); DECLINED; CANCELED (the buyer switched method); VOIDED: a hold released;
 * BOUND: an SBP binding the payer consented to.
 */
export const PROVIDER_SESSION_STATUSES = ["OPEN", "CHALLENGE", "AUTHORIZED", "PAID", "DECLINED", "CANCELED", "VOIDED", "BOUND"] as const;
export const ProviderSessionStatus = z.enum(PROVIDER_SESSION_STATUSES);
export type ProviderSessionStatus = z.infer<typeof ProviderSessionStatus>;

/**
 * A session as the acquirer has it now: the answer of a charge, a capture, a void and of the status
 * lookups (GET /v1/sessions/{id}, GET /v1/charges/{chargeId}). `kind`: PAYMENT (a buyer on the
 * pages), CHARGE (merchant-initiated with a saved method), BINDING (an SBP binding without payment).
 */
/** PAYMENT: a buyer on the pages; CHARGE: merchant-initiated with a saved method; BINDING: an SBP binding without payment. */
export const PROVIDER_SESSION_KINDS = ["PAYMENT", "CHARGE", "BINDING"] as const;

export const ProviderSessionState = z.object({
  sessionId: z.string().min(1),
  merchantPaymentId: z.string(),
  kind: z.enum(PROVIDER_SESSION_KINDS),
  method: PaymentMethod,
  status: ProviderSessionStatus,
  /** What the buyer was asked for (a binding: 0); for a hold, the amount held. */
  amountKopecks: z.number().int().nonnegative(),
  /** What was taken: the amount once PAID, the captured part of a hold; null before. */
  capturedKopecks: z.number().int().positive().nullable(),
  hold: z.boolean(),
  /** AUTHORIZED: when the acquirer voids the hold by itself (reason hold_expired). */
  holdExpiresAt: IsoDateTime.nullable(),
  paidAt: IsoDateTime.nullable(),
  reason: z.string().nullable(),
  /** CHALLENGE of a charge: where the buyer completes the bank's authentication. */
  authenticationUrl: z.string().nullable(),
  /** The method this session saved (PAYMENT with saveMethod, BINDING) or charged (CHARGE). */
  savedMethod: ProviderSavedMethod.nullable(),
});
export type ProviderSessionState = z.infer<typeof ProviderSessionState>;

/**
 * POST /v1/charges: a merchant-initiated charge with a saved method, no buyer present. Idempotent
 * by chargeId (payments' payment id): a repeat never charges twice and returns the charge as it is
 * now; its status is found by GET /v1/charges/{chargeId} when an answer was lost.
 */
export const ProviderChargeRequest = z.object({
  chargeId: Uuid,
  methodId: z.string().min(1).max(64),
  amountKopecks: z.number().int().positive(),
  description: z.string().nullable(),
  /** Where the buyer returns after completing an authentication the bank asked for. */
  returnUrl: z.string(),
  callbackUrl: z.string(),
  hold: z.boolean().default(false),
  /** The authentication's deadline, as a card session's. */
  expiresAt: IsoDateTime.optional(),
});
export type ProviderChargeRequest = z.input<typeof ProviderChargeRequest>;

/** POST /v1/bindings: an SBP account binding without a payment; idempotent by bindingId. */
export const ProviderBindingRequest = z.object({
  bindingId: Uuid,
  merchantName: z.string().max(255).nullable().default(null),
  description: z.string().nullable(),
  returnUrl: z.string(),
  callbackUrl: z.string(),
  expiresAt: IsoDateTime.optional(),
});
export type ProviderBindingRequest = z.input<typeof ProviderBindingRequest>;

/** POST /v1/sessions/{id}/capture: all of a hold (no amount) or part of it; the rest is released. */
export const ProviderCaptureRequest = z.object({ amountKopecks: z.number().int().positive().optional() });

export const PROVIDER_CALLBACK_EVENTS = ["PAID", "DECLINED", "AUTHORIZED", "CAPTURED", "VOIDED", "BOUND", "METHOD_REVOKED"] as const;
export const ProviderCallbackEvent = z.enum(PROVIDER_CALLBACK_EVENTS);
export type ProviderCallbackEvent = z.infer<typeof ProviderCallbackEvent>;

/**
 * POST {callbackUrl}, signed with X-Acquirer-Timestamp / X-Acquirer-Signature. `event` is read as any
 * string: events the receiver does not know are acknowledged and ignored, as the protocol says.
 * The fields after `reason` came with saved methods and holds; a callback without them still reads.
 */
export const ProviderCallback = z.object({
  callbackId: z.string(),
  sessionId: z.string(),
  merchantPaymentId: z.string(),
  event: z.union([ProviderCallbackEvent, z.string()]),
  paidAt: IsoDateTime.nullable(),
  reason: z.string().nullable(),
  /** PAID: the amount taken; AUTHORIZED: the amount held; CAPTURED: the amount captured. */
  amountKopecks: z.number().int().nonnegative().nullable().default(null),
  /** AUTHORIZED: when the acquirer voids the hold by itself. */
  holdExpiresAt: IsoDateTime.nullable().default(null),
  /** PAID, AUTHORIZED or BOUND with a method saved; METHOD_REVOKED: the revoked method. */
  savedMethod: ProviderSavedMethod.nullable().default(null),
});
export type ProviderCallback = z.output<typeof ProviderCallback>;

/** The signed string of a callback: `${timestamp}.${raw body}`. */
export const providerCallbackSigningInput = (timestamp: string, rawBody: string) => `${timestamp}.${rawBody}`;

/** Names of the shared provider secrets still at their published development value (both sides warn at start). */
export function devProviderSecretsInUse(cfg: { ACQUIRER_API_KEY: string; ACQUIRER_CALLBACK_SECRET: string }): string[] {
  const dev: string[] = [];
  if (cfg.ACQUIRER_API_KEY === DEV_ACQUIRER_API_KEY) dev.push("ACQUIRER_API_KEY");
  if (cfg.ACQUIRER_CALLBACK_SECRET === DEV_ACQUIRER_CALLBACK_SECRET) dev.push("ACQUIRER_CALLBACK_SECRET");
  return dev;
}

/**
 * The known events with what each must carry (docs/acquirer-protocol.md, "Callbacks"): a receiver
 * reads a callback with ProviderCallback first (any event), then a known event with this, so a
 * known event without its fields is refused as malformed rather than half-applied.
 */
export const ProviderCallbackKnown = z.discriminatedUnion("event", [
  ProviderCallback.extend({ event: z.literal("PAID"), paidAt: IsoDateTime }),
  ProviderCallback.extend({ event: z.literal("DECLINED"), reason: z.string() }),
  ProviderCallback.extend({ event: z.literal("AUTHORIZED"), amountKopecks: z.number().int().positive(), holdExpiresAt: IsoDateTime }),
  ProviderCallback.extend({ event: z.literal("CAPTURED"), amountKopecks: z.number().int().positive(), paidAt: IsoDateTime }),
  ProviderCallback.extend({ event: z.literal("VOIDED"), reason: z.enum(["voided_by_merchant", "hold_expired"]) }),
  ProviderCallback.extend({ event: z.literal("BOUND"), savedMethod: ProviderSavedMethod }),
  ProviderCallback.extend({ event: z.literal("METHOD_REVOKED"), savedMethod: ProviderSavedMethod }),
]);
export type ProviderCallbackKnown = z.output<typeof ProviderCallbackKnown>;
