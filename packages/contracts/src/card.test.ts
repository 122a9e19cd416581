import { describe, expect, test } from "bun:test";
import { CardForm } from "./card.ts";
import { isCardExpired, isValidCardNumber, parseCardExpiry } from "./luhn.ts";

describe("isValidCardNumber (Luhn)", () => {
  test("accepts the test cards, with or without group separators", () => {
    expect(isValidCardNumber("4111111111111111")).toBe(true);
    expect(isValidCardNumber("4000 0000 0000 0002")).toBe(true);
    expect(isValidCardNumber("4000-0000-0000-3220")).toBe(true);
    expect(isValidCardNumber("5555555555554444")).toBe(true);
  });

  test("rejects a single mistyped digit and swapped neighbours", () => {
    expect(isValidCardNumber("4111111111111112")).toBe(false);
    expect(isValidCardNumber("4111111111111121")).toBe(false);
  });

  test("rejects letters, too few and too many digits", () => {
    expect(isValidCardNumber("4111x11111111111")).toBe(false);
    expect(isValidCardNumber("42")).toBe(false);
    expect(isValidCardNumber("41111111111111111111")).toBe(false);
    expect(isValidCardNumber("")).toBe(false);
  });
});

describe("card expiry", () => {
  test("parses MM/YY only", () => {
    expect(parseCardExpiry("07/29")).toEqual({ month: 7, year: 2029 });
    expect(parseCardExpiry(" 12 / 30 ")).toEqual({ month: 12, year: 2030 });
    expect(parseCardExpiry("13/29")).toBeNull();
    expect(parseCardExpiry("7/29")).toBeNull();
    expect(parseCardExpiry("07/2029")).toBeNull();
  });

  test("a card works through the last day of its month", () => {
    const expiry = { month: 11, year: 2026 };
    expect(isCardExpired(expiry, new Date("2026-11-30T23:59:59Z"))).toBe(false);
    expect(isCardExpired(expiry, new Date("2026-12-01T00:00:00Z"))).toBe(true);
  });
});

describe("CardForm", () => {
  test("normalizes the number and keeps the expiry as numbers", () => {
    const form = CardForm.parse({ pan: "4111 1111 1111 1111", exp: "12/99", cvc: "123", holder: " Ivan Petrov " });
    expect(form).toEqual({ pan: "4111111111111111", exp: { month: 12, year: 2099 }, cvc: "123", holder: "Ivan Petrov" });
  });

  test("lists every problem at once and never echoes the card number", () => {
    const result = CardForm.safeParse({ pan: "4111111111111112", exp: "01/20", cvc: "12", holder: "<script>" });
    expect(result.success).toBe(false);
    const messages = result.error!.issues.map((i) => i.message);
    expect(messages).toEqual([
      "card number is not valid",
      "the card has expired",
      "CVC must be 3 or 4 digits",
      "cardholder name may contain letters, spaces, dots, apostrophes and hyphens",
    ]);
    expect(JSON.stringify(result.error!.issues)).not.toContain("4111111111111112");
  });
});
