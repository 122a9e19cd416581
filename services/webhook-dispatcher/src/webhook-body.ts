import { payoutWebhookStatus, type PaymentEvent, type PayoutEvent, type WebhookBody } from "@payaccept/contracts";
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
 * A payout's webhook (docs/webhooks.md, "Payouts"): the spec's fields, so a receiver that checks
 * a body's shape before its status still reads it — `id` and `orderId` the payout's id, its own
 * status names (PAYOUT_SENT, PAYOUT_PAID…), which a receiver that does not know them acks (spec
 * §6, rule 6), `test` false (payouts are live money) — then the payout itself.
 */
export function serializePayoutWebhookBody(event: PayoutEvent): string {
  const body: WebhookBody = {
    id: event.payout.id,
    orderId: event.payout.id,
    status: payoutWebhookStatus(event.status),
    amountKopecks: event.payout.amountKopecks,
    telegramId: null,
    metadata: null,
    test: false,
    payout: event.payout,
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
