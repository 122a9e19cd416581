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
