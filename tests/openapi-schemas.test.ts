import { describe, expect, test } from "bun:test";
import type { z } from "zod";
import { Balance, CreatePaymentRequest, CreateRefundRequest, ErrorBody, Payment, PaymentListPage, Refund, WebhookBody } from "@payaccept/contracts";
import { documentFor, documentValidator } from "./openapi-validate.ts";

/**
 * The document's JSON Schemas are generated from the zod contracts; these cases check that a
 * standard validator reading the document accepts and refuses the same values zod does.
 */
const validator = documentValidator();

function agree(name: string, schema: z.ZodType, value: unknown, expected: boolean) {
  expect({ value, zod: schema.safeParse(value).success }).toEqual({ value, zod: expected });
  expect({ value, jsonSchema: validator.errors(name, value).length === 0 }).toEqual({ value, jsonSchema: expected });
}

const minimal = { orderId: "A-1", amountKopecks: 100 };
const payment = {
  id: "0198f0c4-6c1e-7a3b-9d2e-4f5a6b7c8d9e",
  orderId: "A-1",
  status: "CREATED",
  amountKopecks: 150000,
  commissionKopecks: 1050,
  description: null,
  method: null,
  telegramId: "123456789",
  metadata: { cart: [1, 2] },
  successUrl: null,
  failUrl: "https://shop.example/fail",
  payUrl: "http://localhost:3001/pay/0198f0c4-6c1e-7a3b-9d2e-4f5a6b7c8d9e",
  isTest: false,
  paidAt: null,
  createdAt: "2026-01-05T10:00:00.000Z",
  refundedKopecks: 0,
};

describe("CreatePaymentRequest", () => {
  test.each([
    ["minimal", minimal, true],
    [
      "every field",
      {
        ...minimal,
        description: "Order 1",
        email: "buyer@shop.example",
        method: "SBP",
        telegramId: 42,
        metadata: { a: 1 },
        successUrl: "https://shop.example/ok",
        failUrl: "tg://resolve?domain=shop_bot",
      },
      true,
    ],
    ["telegramId as digits", { ...minimal, telegramId: "00012345678901234567" }, true],
    ["amount below 100", { ...minimal, amountKopecks: 99 }, false],
    ["amount above the maximum", { ...minimal, amountKopecks: 10_000_000_001 }, false],
    ["fractional amount", { ...minimal, amountKopecks: 100.5 }, false],
    ["amount as a string", { ...minimal, amountKopecks: "100" }, false],
    ["empty orderId", { ...minimal, orderId: "" }, false],
    ["orderId of 65 characters", { ...minimal, orderId: "x".repeat(65) }, false],
    ["no orderId", { amountKopecks: 100 }, false],
    ["bad email", { ...minimal, email: "nope" }, false],
    ["unknown method", { ...minimal, method: "CASH" }, false],
    ["telegramId with a letter", { ...minimal, telegramId: "12a" }, false],
    ["negative telegramId", { ...minimal, telegramId: -1 }, false],
    ["description of 256 characters", { ...minimal, description: "x".repeat(256) }, false],
    ["metadata that is an array", { ...minimal, metadata: [1] }, false],
  ])("%s", (_name, value, ok) => agree("CreatePaymentRequest", CreatePaymentRequest, value, ok));
});

describe("CreateRefundRequest and Refund", () => {
  const refund = {
    id: "0198f0c4-6c1e-7a3b-9d2e-4f5a6b7c8d9f",
    paymentId: "0198f0c4-6c1e-7a3b-9d2e-4f5a6b7c8d9e",
    amountKopecks: 5000,
    reason: null,
    status: "SUCCEEDED",
    failureReason: null,
    failureCode: null,
    failureParams: null,
    createdAt: "2026-01-05T10:00:00.000Z",
    completedAt: "2026-01-05T10:00:01.000Z",
  };
  test.each([
    ["empty: everything left", {}, true],
    ["an amount and a reason", { amountKopecks: 1, reason: "damaged" }, true],
    ["amount 0", { amountKopecks: 0 }, false],
    ["fractional amount", { amountKopecks: 1.5 }, false],
    ["reason of 256 characters", { reason: "x".repeat(256) }, false],
  ])("request: %s", (_name, value, ok) => agree("CreateRefundRequest", CreateRefundRequest, value, ok));
  test.each([
    ["a succeeded refund", refund, true],
    ["a pending one", { ...refund, status: "PENDING", completedAt: null }, true],
    [
      "a declined one",
      { ...refund, status: "FAILED", failureReason: "the acquirer declined the refund: refund_declined", failureCode: "REFUND_DECLINED", failureParams: { detail: "refund_declined" } },
      true,
    ],
    ["an unknown status", { ...refund, status: "LOST" }, false],
  ])("refund: %s", (_name, value, ok) => agree("Refund", Refund, value, ok));

  test("rules that JSON Schema cannot express are stated in the description", () => {
    const schema = documentFor().components!.schemas!.CreatePaymentRequest as { properties: Record<string, { description?: string }> };
    const props = schema.properties;
    expect(props.successUrl!.description).toContain("https://, t.me or tg://");
    expect(props.successUrl!.description).toContain("without spaces or control characters");
    expect(props.metadata!.description).toContain("4 KB");
  });
});

describe("Payment and PaymentListPage", () => {
  test.each([
    ["a created payment", payment, true],
    ["a paid payment", { ...payment, status: "SUCCESS", method: "CARD", paidAt: "2026-01-05T10:05:00.000Z" }, true],
    ["an unknown status", { ...payment, status: "PAID" }, false],
    ["a missing field", Object.fromEntries(Object.entries(payment).filter(([k]) => k !== "paidAt")), false],
    ["a non-UUID id", { ...payment, id: "42" }, false],
    ["a date that is not ISO", { ...payment, createdAt: "yesterday" }, false],
    ["a fractional amount", { ...payment, amountKopecks: 1.5 }, false],
  ])("%s", (_name, value, ok) => agree("Payment", Payment, value, ok));

  test.each([
    ["a page", { items: [payment], total: 1, page: 1, pageSize: 20 }, true],
    ["an empty page", { items: [], total: 0, page: 3, pageSize: 20 }, true],
    ["a page with a broken item", { items: [{ ...payment, status: "PAID" }], total: 1, page: 1, pageSize: 20 }, false],
    ["no total", { items: [], page: 1, pageSize: 20 }, false],
  ])("%s", (_name, value, ok) => agree("PaymentListPage", PaymentListPage, value, ok));
});

describe("Balance, Error and WebhookBody", () => {
  test.each([
    ["a balance", { availableKopecks: 10, frozenKopecks: 0, holdHour: 3 }, true],
    ["an hour past 23", { availableKopecks: 10, frozenKopecks: 0, holdHour: 24 }, false],
  ])("%s", (_name, value, ok) => agree("Balance", Balance, value, ok));

  test.each([
    ["one message", { statusCode: 404, message: "not found", error: "Not Found", code: "PAYMENT_NOT_FOUND", params: {} }, true],
    ["every problem listed, no error name", { statusCode: 400, message: ["a", "b"], code: "VALIDATION_FAILED", params: { issues: [] } }, true],
    ["no code", { statusCode: 404, message: "not found", error: "Not Found", params: {} }, false],
    ["a code not in the catalogue", { statusCode: 404, message: "not found", code: "NOPE", params: {} }, false],
    ["a numeric message", { statusCode: 400, message: 1 }, false],
    ["no statusCode", { message: "x" }, false],
  ])("%s", (_name, value, ok) => agree("Error", ErrorBody, value, ok));

  test.each([
    ["a live webhook", { id: payment.id, orderId: "A-1", status: "SUCCESS", amountKopecks: 100, telegramId: null, metadata: null, test: false }, true],
    ["a test notification", { id: "test-1", orderId: "A-1", status: "SUCCESS", amountKopecks: 100, telegramId: "1", test: true }, true],
    ["a status added later", { id: payment.id, orderId: "A-1", status: "PARTIALLY_REFUNDED", amountKopecks: 100, telegramId: null }, true],
    ["no telegramId", { id: payment.id, orderId: "A-1", status: "SUCCESS", amountKopecks: 100 }, false],
  ])("%s", (_name, value, ok) => agree("WebhookBody", WebhookBody, value, ok));
});
