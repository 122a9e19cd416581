import { expect, test } from "bun:test";
import { decideCard } from "./test-cards.ts";

test("the documented test cards decide the outcome; other valid numbers are approved", () => {
  expect(decideCard("4111111111111111")).toBe("approve");
  expect(decideCard("4000000000000002")).toBe("decline");
  expect(decideCard("4000000000003220")).toBe("challenge");
  expect(decideCard("5555555555554444")).toBe("approve");
});
