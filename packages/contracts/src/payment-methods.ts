import { z } from "zod";
import { intParam, IsoDateTime, PaymentMethod, Text, Uuid, UuidInput } from "./primitives.ts";
import { ProviderCardDescription, REVOKED_BY, SAVED_METHOD_STATUSES } from "./provider.ts";

/**
 * Saved payment methods (docs/payments.md, "Saved methods"): a card or an SBP account binding the
 * buyer agreed to save at a payment, which the shop then charges without the buyer
 * (`paymentMethodId` on a create). Never a card number: the brand, the last 4 digits and the expiry.
 */

/** The merchant's reference for its buyer (`customerId` of a create), by which a shop lists a customer's methods. */
export const CustomerId = Text.min(1).max(64);

/** What a payment says of the method it saved or charged: which one, and how a buyer recognises it. */
export const PaymentMethodDetails = z.object({
  /** The saved method's id: `paymentMethodId` of a later create charges it. */
  id: Uuid,
  method: PaymentMethod,
  /** A card: brand, last 4 digits, expiry month and year. Null for SBP. */
  card: ProviderCardDescription.nullable(),
  /** An SBP account binding: the payer's bank, as the buyer knows it. Null for a card. */
  sbp: z.object({ bankName: z.string() }).nullable(),
});
export type PaymentMethodDetails = z.infer<typeof PaymentMethodDetails>;

/** ACTIVE: chargeable. EXPIRED: the card's expiry passed or its bank reports it expired. REVOKED: by the shop, the payer or the bank. */
export const SavedMethodStatus = z.enum(SAVED_METHOD_STATUSES);
export type SavedMethodStatus = z.infer<typeof SavedMethodStatus>;
export const RevokedBy = z.enum(REVOKED_BY);
export type RevokedBy = z.infer<typeof RevokedBy>;

/** GET /v1/payment-methods/{id}: a saved method as it stands now. */
export const SavedPaymentMethod = PaymentMethodDetails.extend({
  status: SavedMethodStatus,
  /** The `customerId` of the payment that saved it; null when that payment had none. */
  customerId: z.string().nullable(),
  /** The payment that saved it. */
  paymentId: Uuid,
  /** Saved by a sandbox payment: charges with it move no money. */
  isTest: z.boolean(),
  createdAt: IsoDateTime,
  /** When it stopped being chargeable (revoked or expired); null while ACTIVE. */
  deactivatedAt: IsoDateTime.nullable(),
  /** Who revoked it: MERCHANT (this API), PAYER (in their bank app), ISSUER (the card's bank); null unless REVOKED. */
  revokedBy: RevokedBy.nullable(),
});
export type SavedPaymentMethod = z.infer<typeof SavedPaymentMethod>;

export const PaymentMethodIdParam = z.object({ id: UuidInput });

/** GET /v1/payment-methods: the shop's saved methods, newest first, a page at a time. */
export const PaymentMethodsQuery = z.object({
  customerId: CustomerId.optional(),
  limit: intParam(1, 100, 20),
  startingAfter: UuidInput.optional(),
});
export type PaymentMethodsQuery = z.output<typeof PaymentMethodsQuery>;

export const PaymentMethodList = z.object({ items: z.array(SavedPaymentMethod), hasMore: z.boolean() });
export type PaymentMethodList = z.infer<typeof PaymentMethodList>;

/**
 * How the payment page asks for the buyer's consent to save a method (the shop's setting):
 * ALWAYS — the page says the method will be saved and paying is agreeing; BUYER_CHOICE (the
 * default) — the buyer ticks a box, and paying without it saves nothing.
 */
export const SAVE_METHOD_CONSENTS = ["ALWAYS", "BUYER_CHOICE"] as const;
export const SaveMethodConsent = z.enum(SAVE_METHOD_CONSENTS);
export type SaveMethodConsent = z.infer<typeof SaveMethodConsent>;
