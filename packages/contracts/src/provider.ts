import { z } from "zod";
import { IsoDateTime, PaymentMethod, Uuid } from "./primitives.ts";

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
});
export type ProviderSessionRequest = z.infer<typeof ProviderSessionRequest>;

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

/** Non-2xx replies of the acquirer. */
export const ProviderErrorBody = z.object({ error: z.string() });

export const ProviderCallbackEvent = z.enum(["PAID", "DECLINED"]);
export type ProviderCallbackEvent = z.infer<typeof ProviderCallbackEvent>;

/**
 * POST {callbackUrl}, signed with X-Acquirer-Timestamp / X-Acquirer-Signature. `event` is read as any
 * string: events the receiver does not know are acknowledged and ignored, as the protocol says.
 */
export const ProviderCallback = z.object({
  callbackId: z.string(),
  sessionId: z.string(),
  merchantPaymentId: z.string(),
  event: z.union([ProviderCallbackEvent, z.string()]),
  paidAt: IsoDateTime.nullable(),
  reason: z.string().nullable(),
});
export type ProviderCallback = z.infer<typeof ProviderCallback>;

/** The signed string of a callback: `${timestamp}.${raw body}`. */
export const providerCallbackSigningInput = (timestamp: string, rawBody: string) => `${timestamp}.${rawBody}`;

/** Names of the shared provider secrets still at their published development value (both sides warn at start). */
export function devProviderSecretsInUse(cfg: { ACQUIRER_API_KEY: string; ACQUIRER_CALLBACK_SECRET: string }): string[] {
  const dev: string[] = [];
  if (cfg.ACQUIRER_API_KEY === DEV_ACQUIRER_API_KEY) dev.push("ACQUIRER_API_KEY");
  if (cfg.ACQUIRER_CALLBACK_SECRET === DEV_ACQUIRER_CALLBACK_SECRET) dev.push("ACQUIRER_CALLBACK_SECRET");
  return dev;
}
