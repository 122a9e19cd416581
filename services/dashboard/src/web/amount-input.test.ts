import { expect, test } from "bun:test";
import { hundredthsInput, parsePercentBp, parseRubles } from "./amount-input.ts";

test("rubles as people type them become exact kopecks", () => {
  expect(parseRubles("1500")).toBe(150_000);
  expect(parseRubles("1 234,56")).toBe(123_456);
  expect(parseRubles("1\u00A0234.5")).toBe(123_450);
  expect(parseRubles("0,07")).toBe(7);
  expect(parseRubles("100000000")).toBe(10_000_000_000);
});

test("anything else is not an amount", () => {
  for (const bad of ["", "-5", "1,234,56", "12.345", "1e5", "abc", "١٢", "999999999999"]) expect(parseRubles(bad)).toBeUndefined();
});

test("percent in hundredths, from 0 to 100", () => {
  expect(parsePercentBp("2,5")).toBe(250);
  expect(parsePercentBp("0.7")).toBe(70);
  expect(parsePercentBp("100")).toBe(10_000);
  expect(parsePercentBp("100.01")).toBeUndefined();
});

test("inputs show the stored value back in the language's decimal mark", () => {
  expect(hundredthsInput(123_456, "ru")).toBe("1234,56");
  expect(hundredthsInput(70, "en")).toBe("0.70");
});
