import { describe, expect, test } from "bun:test";
import { WebhookBody } from "@payaccept/contracts";
import { paymentEvent, shopRecord } from "../test-support/fixtures.ts";
import { serializeTestWebhookBody, serializeWebhookBody } from "./webhook-body.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

describe("webhook body", () => {
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
