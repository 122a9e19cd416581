import { describe, expect, test } from "bun:test";
import { CreatePaymentRequest, ListPaymentsQuery, LookupPaymentQuery, formatIssues, isAllowedReturnUrl, jsonValueProblems } from "./index.ts";

const valid = { orderId: "A-1", amountKopecks: 100 };

describe("CreatePaymentRequest", () => {
  test("accepts the minimal body and strips unknown fields", () => {
    const r = CreatePaymentRequest.parse({ ...valid, extra: 1 });
    expect(r).toEqual(valid);
  });

  test("lists every problem at once", () => {
    const r = CreatePaymentRequest.safeParse({
      orderId: "",
      amountKopecks: 99,
      email: "nope",
      method: "CASH",
      telegramId: "12a",
      successUrl: "http://shop.example/ok",
    });
    expect(r.success).toBe(false);
    const msgs = formatIssues(r.error!);
    for (const field of ["orderId", "amountKopecks", "email", "method", "telegramId", "successUrl"]) {
      expect(msgs.some((m) => m.startsWith(`${field}:`))).toBe(true);
    }
  });

  test("amount bounds are inclusive and integer", () => {
    expect(CreatePaymentRequest.safeParse({ ...valid, amountKopecks: 10_000_000_000 }).success).toBe(true);
    expect(CreatePaymentRequest.safeParse({ ...valid, amountKopecks: 10_000_000_001 }).success).toBe(false);
    expect(CreatePaymentRequest.safeParse({ ...valid, amountKopecks: 100.5 }).success).toBe(false);
    expect(CreatePaymentRequest.safeParse({ ...valid, amountKopecks: "100" }).success).toBe(false);
  });

  test("telegramId accepts digits or an integer and becomes a string", () => {
    expect(CreatePaymentRequest.parse({ ...valid, telegramId: 123456789 }).telegramId).toBe("123456789");
    expect(CreatePaymentRequest.parse({ ...valid, telegramId: "00012345678901234567" }).telegramId).toBe("00012345678901234567");
    expect(CreatePaymentRequest.safeParse({ ...valid, telegramId: "123456789012345678901" }).success).toBe(false);
    expect(CreatePaymentRequest.safeParse({ ...valid, telegramId: -1 }).success).toBe(false);
  });

  test("metadata must be an object of at most 4 KB", () => {
    expect(CreatePaymentRequest.safeParse({ ...valid, metadata: { a: "x".repeat(4000) } }).success).toBe(true);
    expect(CreatePaymentRequest.safeParse({ ...valid, metadata: { a: "x".repeat(4100) } }).success).toBe(false);
    expect(CreatePaymentRequest.safeParse({ ...valid, metadata: [1, 2] }).success).toBe(false);
    // multi-byte characters count in bytes
    expect(CreatePaymentRequest.safeParse({ ...valid, metadata: { a: "я".repeat(2100) } }).success).toBe(false);
  });

  test("length limits", () => {
    expect(CreatePaymentRequest.safeParse({ ...valid, orderId: "x".repeat(64) }).success).toBe(true);
    expect(CreatePaymentRequest.safeParse({ ...valid, orderId: "x".repeat(65) }).success).toBe(false);
    expect(CreatePaymentRequest.safeParse({ ...valid, description: "x".repeat(256) }).success).toBe(false);
    expect(CreatePaymentRequest.safeParse({ ...valid, successUrl: `https://a.ru/${"x".repeat(290)}` }).success).toBe(false);
  });
});

describe("return links", () => {
  test.each([
    ["https://shop.example/ok", true],
    ["https://t.me/shop_bot?start=paid", true],
    ["t.me/shop_bot", true],
    ["tg://resolve?domain=shop_bot", true],
    ["http://shop.example/ok", false],
    ["javascript:alert(1)", false],
    ["ftp://x", false],
    ["tg:", false],
    ["", false],
  ])("%s → %p", (url, ok) => {
    expect(isAllowedReturnUrl(url)).toBe(ok);
  });
});

describe("ListPaymentsQuery", () => {
  test("defaults page 1 and limit 20", () => {
    expect(ListPaymentsQuery.parse({})).toEqual({ page: 1, limit: 20 });
  });

  test("parses comma-separated statuses", () => {
    expect(ListPaymentsQuery.parse({ status: "SUCCESS,CANCELED" }).status).toEqual(["SUCCESS", "CANCELED"]);
  });

  test("rejects unknown statuses, bad pages and from later than to, all at once", () => {
    const r = ListPaymentsQuery.safeParse({
      status: "SUCCESS,PAID",
      page: "0",
      limit: "101",
      from: "2026-01-02T00:00:00Z",
      to: "2026-01-01T00:00:00Z",
    });
    expect(r.success).toBe(false);
    const msgs = formatIssues(r.error!);
    expect(msgs.some((m) => m.startsWith("status:") && m.includes("PAID"))).toBe(true);
    expect(msgs.some((m) => m.startsWith("page:"))).toBe(true);
    expect(msgs.some((m) => m.startsWith("limit:"))).toBe(true);
  });

  test("from later than to is an error; equal is fine", () => {
    const later = ListPaymentsQuery.safeParse({ from: "2026-01-02T00:00:00Z", to: "2026-01-01T00:00:00Z" });
    expect(later.success).toBe(false);
    expect(formatIssues(later.error!)).toContain("from: must not be later than to");
    expect(ListPaymentsQuery.safeParse({ from: "2026-01-01T00:00:00Z", to: "2026-01-01T00:00:00Z" }).success).toBe(true);
  });

  test("page bounds", () => {
    expect(ListPaymentsQuery.parse({ page: "10000", limit: "100" })).toMatchObject({ page: 10000, limit: 100 });
    expect(ListPaymentsQuery.safeParse({ page: "10001" }).success).toBe(false);
    expect(ListPaymentsQuery.safeParse({ page: "1.5" }).success).toBe(false);
    expect(ListPaymentsQuery.safeParse({ from: "yesterday" }).success).toBe(false);
  });
});

describe("text that comes in", () => {
  const problems = (body: unknown) => {
    const r = CreatePaymentRequest.safeParse(body);
    return r.success ? [] : formatIssues(r.error);
  };

  test("a lone surrogate is refused in every string, a pair is text", () => {
    expect(problems({ ...valid, orderId: "X-\ud800" })).toEqual(["orderId: must not contain a lone UTF-16 surrogate"]);
    expect(problems({ ...valid, orderId: "X-\udc00", description: "a\ud800b" })).toHaveLength(2);
    expect(problems({ ...valid, orderId: "X-\ud83d\ude00", description: "\ud83d\ude00" })).toEqual([]);
    expect(LookupPaymentQuery.safeParse({ orderId: "\udfff" }).success).toBe(false);
  });

  test("metadata: __proto__ keys and lone surrogates at any depth, each with its path", () => {
    const metadata = JSON.parse('{"__proto__":{"x":1},"a":{"b":["ok","\\ud800"],"__proto__":null},"k\\udc00":1}');
    expect(problems({ ...valid, metadata })).toEqual([
      "metadata: must not contain the key __proto__",
      "metadata.a.b.1: must not contain a lone UTF-16 surrogate",
      "metadata.a: must not contain the key __proto__",
      "metadata: keys must not contain a lone UTF-16 surrogate",
    ]);
    expect(jsonValueProblems({ constructor: 1, prototype: { toString: "x" } })).toEqual([]);
  });
});
