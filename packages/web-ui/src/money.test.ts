import { expect, test } from "bun:test";
import { formatRubles } from "./money.ts";

test("Russian: narrow no-break spaces between groups, a comma before kopecks, a no-break space before ₽", () => {
  expect(formatRubles(123456, "ru")).toBe("1\u202F234,56\u00A0₽");
  expect(formatRubles(100, "ru")).toBe("1,00\u00A0₽");
  expect(formatRubles(5, "ru")).toBe("0,05\u00A0₽");
  expect(formatRubles(99999900, "ru")).toBe("999\u202F999,00\u00A0₽");
  expect(formatRubles(10_000_000_000, "ru")).toBe("100\u202F000\u202F000,00\u00A0₽");
});

test("English: comma groups and a decimal point after the ruble sign", () => {
  expect(formatRubles(123456, "en")).toBe("₽1,234.56");
  expect(formatRubles(100050, "en")).toBe("₽1,000.50");
  expect(formatRubles(-2500, "en")).toBe("-₽25.00");
});

test("every kopeck of the largest allowed amount is kept exactly", () => {
  expect(formatRubles(9_999_999_999, "ru")).toBe("99\u202F999\u202F999,99\u00A0₽");
});
