import { expect, test } from "bun:test";
import { cardBrandOf } from "./card-brand.ts";

test("the brand comes from the first digits; Mir's 2200–2204 is not Mastercard's 2-series", () => {
  expect(["4111111111111111", "5555555555554444", "2221000000000009", "2720990000000007", "2200000000000004", "6200000000000005", "3530111333300000"].map(cardBrandOf)).toEqual([
    "VISA",
    "MASTERCARD",
    "MASTERCARD",
    "MASTERCARD",
    "MIR",
    "UNIONPAY",
    "OTHER",
  ]);
});
