import { describe, expect, test } from "bun:test";
import { WebhookBody, type PayoutEvent } from "@payaccept/contracts";
import { paymentEvent, shopRecord } from "../test-support/fixtures.ts";
import { payoutDeliveries } from "./intake.ts";
import { serializePayoutWebhookBody, serializeTestWebhookBody, serializeWebhookBody } from "./webhook-body.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A payout's event as the balance's outbox publishes it. */
const payoutEvent = (accountId: string): PayoutEvent => ({
  eventId: "payout:p-1:PAID",
  accountId,
  status: "PAID",
  occurredAt: "2026-03-11T09:00:00.000Z",
  payout: {
    id: crypto.randomUUID(),
    accountId,
    amountKopecks: 150_050,
    status: "PAID",
    createdAt: "2026-03-10T12:00:00.000Z",
    scheduled: true,
    order: { number: 12, date: "2026-03-10", reference: "PA-0123456789ABCDEF", rail: "exchange-file", recipientName: "ООО «Ромашка»", bik: "044525225", account: "40702810938000000001", purpose: "Выплата PA-0123456789ABCDEF от 10.03.2026. Без налога (НДС)" },
    sentAt: "2026-03-10T15:00:00.000Z",
    paidAt: "2026-03-11T09:00:00.000Z",
    failedAt: null,
    returnedAt: null,
    failureReason: null,
  },
});

describe("webhook body", () => {
  test("a payout's: the spec's fields first (its id as id and orderId, its own status name, test false), then the payout", () => {
    const event = payoutEvent("acc-1");
    const body = JSON.parse(serializePayoutWebhookBody(event));
    expect(Object.keys(body)).toEqual(["id", "orderId", "status", "amountKopecks", "telegramId", "metadata", "test", "payout"]);
    expect(WebhookBody.strict().parse(body)).toEqual({ id: event.payout.id, orderId: event.payout.id, status: "PAYOUT_PAID", amountKopecks: 150_050, telegramId: null, metadata: null, test: false, payout: event.payout });
  });

  test("a payout's event goes to every live shop of its account, none of another account, no sandbox shop", () => {
    const live = [shopRecord({ accountId: "acc-1" }), shopRecord({ accountId: "acc-1", active: false })];
    const others = [shopRecord({ accountId: "acc-1", sandbox: true }), shopRecord({ accountId: "acc-2" })];
    const made = payoutDeliveries(payoutEvent("acc-1"), [...live, ...others], 1, undefined);
    expect(made.map((d) => [d.shopId, d.status, d.paymentId])).toEqual(live.map((s) => [s.shopId, "PAYOUT_PAID", expect.any(String)]));
    expect(new Set(made.map((d) => d.body)).size).toBe(1);
  });

  test("exactly the spec's fields, in a fixed order; nothing internal leaks (shop, account, commission, method)", () => {
    const event = paymentEvent(shopRecord(), { status: "REFUNDED", telegramId: "42", metadata: { cart: [1, 2], note: "заказ" } });
    const body = serializeWebhookBody(event);
    expect(Object.keys(JSON.parse(body))).toEqual(["id", "orderId", "status", "amountKopecks", "telegramId", "metadata", "test"]);
    expect(WebhookBody.strict().parse(JSON.parse(body))).toEqual({
      id: event.paymentId,
      orderId: event.orderId,
      status: "REFUNDED",
      amountKopecks: event.amountKopecks,
      telegramId: "42",
      metadata: { cart: [1, 2], note: "заказ" },
      test: false,
    });
  });

  test("a payment that uses holds or saved methods has its extras after test, in the Payment's names; the spec's fields stay first", () => {
    const paymentMethod = { id: crypto.randomUUID(), method: "CARD" as const, card: { brand: "VISA" as const, last4: "4242", expMonth: 12, expYear: 2030 }, sbp: null };
    const event = paymentEvent(shopRecord(), { status: "SUCCESS", extras: { customerId: "c-1", paymentMethod, capture: false, heldKopecks: 250000, captureDeadline: null } });
    const body = JSON.parse(serializeWebhookBody(event));
    expect(Object.keys(body)).toEqual(["id", "orderId", "status", "amountKopecks", "telegramId", "metadata", "test", "customerId", "paymentMethod", "capture", "heldKopecks", "captureDeadline"]);
    expect(WebhookBody.strict().parse(body)).toMatchObject({ status: "SUCCESS", customerId: "c-1", paymentMethod, capture: false, heldKopecks: 250000, captureDeadline: null });
  });

  test("test is true for sandbox payments and present (false) for live ones", () => {
    expect(JSON.parse(serializeWebhookBody(paymentEvent(shopRecord({ sandbox: true })))).test).toBe(true);
    expect(JSON.parse(serializeWebhookBody(paymentEvent(shopRecord({ sandbox: false })))).test).toBe(false);
  });

  test("a test notification is a valid body with test: true and a fresh id that starts with test- and is no UUID", () => {
    const a = serializeTestWebhookBody();
    const b = serializeTestWebhookBody();
    expect(a.id).not.toBe(b.id);
    expect(a.id).toMatch(/^test-/);
    expect(a.id).not.toMatch(UUID);
    expect(a.id.slice(5)).not.toMatch(UUID);
    expect(WebhookBody.strict().parse(JSON.parse(a.body))).toMatchObject({ id: a.id, test: true });
  });
});
