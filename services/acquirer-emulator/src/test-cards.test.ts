import { expect, test } from "bun:test";
import { isValidCardNumber } from "@payaccept/contracts";
import { chargeProfileOf, decideCard } from "./test-cards.ts";

test("the documented test cards decide the form's outcome and their tokens' charges; other valid numbers are approved", () => {
  const cards: [string, string, string][] = [
    ["4111111111111111", "approve", "approve"],
    ["4000000000000002", "decline", "approve"],
    ["4000000000003220", "challenge", "approve"],
    ["4000000000009995", "approve", "insufficient_funds"],
    ["4000000000000069", "approve", "expired"],
    ["4000000000000119", "approve", "revoked"],
    ["4000000000000341", "approve", "authenticate"],
    ["4000000000000077", "approve", "drop"],
    ["5555555555554444", "approve", "approve"],
  ];
  for (const [pan, form, charges] of cards) {
    expect(isValidCardNumber(pan)).toBe(true);
    expect([pan, decideCard(pan), chargeProfileOf(pan)]).toEqual([pan, form, charges]);
  }
});
