import type { PaymentEvent, WebhookBody } from "@payaccept/contracts";
import { randomToken } from "@payaccept/platform";

/**
 * The spec §2.5 body of a payment event, serialised once: the string stored with the delivery is
 * the exact byte sequence every attempt sends and signs. `test` is always present (false for live
 * payments) because receivers check its value, not its presence. The extras of a payment that
 * uses saved methods, charges or holds follow `test` (docs/webhooks.md, "Saved methods and
 * holds"); without them the body is the spec's, byte for byte.
 */
export function serializeWebhookBody(event: PaymentEvent): string {
  const body: WebhookBody = {
    id: event.paymentId,
    orderId: event.orderId,
    status: event.status,
    amountKopecks: event.amountKopecks,
    telegramId: event.telegramId,
    metadata: event.metadata,
    test: event.isTest,
    ...event.extras,
  };
  return JSON.stringify(body);
}

/**
 * The "Send test webhook" notification (spec §6): built like a live one, with an id that starts
 * with `test-` and is not a UUID, so no receiver can mistake it for a payment.
 */
export function serializeTestWebhookBody(): { id: string; body: string } {
  const body: WebhookBody = {
    id: `test-${randomToken(12)}`,
    orderId: "test-order",
    status: "SUCCESS",
    amountKopecks: 10000,
    telegramId: null,
    metadata: null,
    test: true,
  };
  return { id: body.id, body: JSON.stringify(body) };
}
