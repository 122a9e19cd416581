import type { PaymentEventStatus, Payout, PayoutStatus, WebhookExtras } from "@payaccept/contracts";

/**
 * Webhook statuses known today; the set may grow, so handle any other string too (spec §9). The
 * spec's final statuses reach every shop; AUTHORIZED (a hold the buyer paid, waiting for capture)
 * only shops that hold payments, and PAYMENT_METHOD_REVOKED / PAYMENT_METHOD_EXPIRED (a saved
 * method that can no longer be charged, `paymentMethod` says which) only shops that save methods.
 * PAYOUT_<status> is a payout's (its `id` is the payout's, `payout` the payout itself): every live
 * shop of the account gets it.
 */
export type KnownWebhookStatus = PaymentEventStatus | `PAYOUT_${PayoutStatus}`;

/**
 * The webhook body (spec §2.5), with the extras of a payment that saves or charges a method or
 * holds money (each present only when the payment uses its feature): `paymentMethod` is the whole
 * saved method on the PAYMENT_METHOD_* statuses, the payment's method details otherwise.
 */
export type WebhookEvent = WebhookExtras & {
  /** Payment id (UUID); a test notification's id starts with `test-`. */
  id: string;
  orderId: string;
  status: KnownWebhookStatus | (string & {});
  amountKopecks: number;
  telegramId: string | null;
  metadata?: Record<string, unknown> | null;
  /** True for test notifications and sandbox payments: reply 200 and deliver no goods. */
  test?: boolean;
  /** A payout's webhook (status PAYOUT_…): the payout as it stood then. */
  payout?: Payout;
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Null when the value does not have the WebhookEvent shape. */
export function asWebhookEvent(value: unknown): WebhookEvent | null {
  if (!isObject(value)) return null;
  const { id, orderId, status, amountKopecks, telegramId, metadata, test } = value;
  const valid =
    typeof id === "string" &&
    typeof orderId === "string" &&
    typeof status === "string" &&
    Number.isInteger(amountKopecks) &&
    (telegramId === null || typeof telegramId === "string") &&
    (metadata === undefined || metadata === null || isObject(metadata)) &&
    (test === undefined || typeof test === "boolean");
  return valid ? (value as WebhookEvent) : null;
}
