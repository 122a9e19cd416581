/** Final payment statuses known today; the set may grow, so handle any other string too (spec §9). */
export type KnownWebhookStatus = "SUCCESS" | "FAILED" | "EXPIRED" | "REFUNDED" | "CANCELED";

/** The webhook body (spec §2.5). */
export type WebhookEvent = {
  /** Payment id (UUID); a test notification's id starts with `test-`. */
  id: string;
  orderId: string;
  status: KnownWebhookStatus | (string & {});
  amountKopecks: number;
  telegramId: string | null;
  metadata?: Record<string, unknown> | null;
  /** True for test notifications and sandbox payments: reply 200 and deliver no goods. */
  test?: boolean;
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
