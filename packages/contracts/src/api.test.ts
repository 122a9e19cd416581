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
    ["https://shop.example/ok\r\nSet-Cookie: a=b", false],
    ["https://shop.example/\tok", false],
    ["https://shop.example/o k", false],
    ["https://shop.example/ok\u0085", false],
    ["t.me/shop_bot\n", false],
    ["https:shop.example/ok", false],
    ["HTTPS://SHOP.EXAMPLE/OK", true],
    ["https://пример.рф/ok?q=%20", true],
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

  test("to is inclusive at the precision it is written in, and its own output maps to itself", () => {
    const to = (v: string) => ListPaymentsQuery.parse({ to: v }).to;
    expect(to("2026-01-01T23:59:59Z")).toBe("2026-01-01T23:59:59.999Z");
    expect(to("2026-01-01T23:59:59.5Z")).toBe("2026-01-01T23:59:59.599Z");
    expect(to("2026-01-01T23:59:59.25Z")).toBe("2026-01-01T23:59:59.259Z");
    expect(to("2026-01-01T23:59:59.250Z")).toBe("2026-01-01T23:59:59.250Z");
    expect(to("2026-01-02T02:59:59+03:00")).toBe("2026-01-01T23:59:59.999Z");
    expect(to(to("2026-01-01T23:59:59Z")!)).toBe("2026-01-01T23:59:59.999Z");
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

  test("metadata nested 30,000 deep (60 KB) is too large like any other over 4 KB, not a stack overflow (issue 20); 2,045 deep fits", () => {
    const nested = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;
    expect(problems({ ...valid, metadata: JSON.parse(`{"a":${nested(30_000)}}`) })).toEqual(["metadata: must be at most 4096 bytes as JSON"]);
    expect(problems({ ...valid, metadata: JSON.parse(`{"a":${nested(2_045)}}`) })).toEqual([]);
    expect(problems({ ...valid, metadata: JSON.parse(`{"a":${nested(2_046)}}`) })).toEqual(["metadata: must be at most 4096 bytes as JSON"]);
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

  test("metadata: an integer JSON.parse would round is refused at its path; safe integers, floats and strings pass", () => {
    const metadata = JSON.parse('{"id":12345678901234567890,"a":[-9007199254740993,1e300],"ok":9007199254740991,"f":0.1,"s":"12345678901234567890"}');
    expect(problems({ ...valid, metadata })).toEqual([
      "metadata.id: must not hold an integer beyond ±(2^53 − 1): send it as a string",
      "metadata.a.0: must not hold an integer beyond ±(2^53 − 1): send it as a string",
      "metadata.a.1: must not hold an integer beyond ±(2^53 − 1): send it as a string",
    ]);
  });

  test("the character U+0000 is refused in every string and in metadata's keys and values", () => {
    expect(problems({ ...valid, orderId: "A\u0000B" })).toEqual(["orderId: must not contain the character U+0000"]);
    expect(problems({ ...valid, description: "\u0000" })).toEqual(["description: must not contain the character U+0000"]);
    const metadata = JSON.parse('{"a":["ok","x\\u0000"],"k\\u0000":1}');
    expect(problems({ ...valid, metadata })).toEqual(["metadata.a.1: must not contain the character U+0000", "metadata: keys must not contain the character U+0000"]);
    expect(LookupPaymentQuery.safeParse({ orderId: "\u0000" }).success).toBe(false);
    // Other control characters are text (a tab in a description is fine).
    expect(problems({ ...valid, description: "a\tb\u0001" })).toEqual([]);
  });
});

describe("CreatePaymentRequest.receipt", () => {
  const ok = { customer: { email: "b@example.com" }, items: [{ name: "A", quantity: 1.5, priceKopecks: 333 }, { name: "B", quantity: 1, priceKopecks: 200 }] };
  const problems = (input: unknown) => {
    const r = CreatePaymentRequest.safeParse(input);
    return r.success ? [] : formatIssues(r.error);
  };

  test("items rounded per line to a kopeck must add up to the amount exactly", () => {
    expect(problems({ orderId: "o", amountKopecks: 700, receipt: ok })).toEqual([]);
    expect(problems({ orderId: "o", amountKopecks: 701, receipt: ok })).toEqual([
      "receipt.items: the items (price × quantity, each rounded to a kopeck) must add up to amountKopecks exactly",
    ]);
  });

  test("the sum is not checked where it means nothing: a bad amount, price, quantity or receipt, or no object at all", () => {
    const sum = (p: string[]) => p.filter((m) => m.includes("add up"));
    expect(sum(problems({ orderId: "o", amountKopecks: "700", receipt: ok }))).toEqual([]);
    expect(sum(problems({ orderId: "o", amountKopecks: 900, receipt: { ...ok, items: [{ name: "A", quantity: -1, priceKopecks: 333 }] } }))).toEqual([]);
    expect(sum(problems({ orderId: "o", amountKopecks: 900, receipt: "yes" }))).toEqual([]);
    for (const body of [null, "x", 5, []]) expect(CreatePaymentRequest.safeParse(body).success).toBe(false);
  });

  test("2026 VAT rates and FFD 1.2 enumerations are accepted; quantities keep at most 3 decimals", () => {
    const item = (over: object) => ({ orderId: "o", amountKopecks: 100, receipt: { customer: { phone: "+79001234567" }, taxation: "esn", items: [{ name: "A", quantity: 1, priceKopecks: 100, ...over }] } });
    for (const vat of ["vat22", "vat122", "vat5", "vat105", "vat7", "vat107", "none", "vat0"]) expect(problems(item({ vat }))).toEqual([]);
    expect(problems(item({ vat: "vat18" }))[0]).toStartWith("receipt.items.0.vat:");
    expect(problems(item({ quantity: 0.001, priceKopecks: 100_000 }))).toEqual([]);
    expect(problems(item({ quantity: 0.0005, priceKopecks: 200_000 }))[0]).toBe("receipt.items.0.quantity: must have at most 3 decimals");
    expect(problems(item({ name: "x".repeat(129) }))[0]).toStartWith("receipt.items.0.name:");
  });
});
