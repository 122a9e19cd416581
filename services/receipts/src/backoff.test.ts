import { expect, test } from "bun:test";
import { nextAttemptAt } from "./backoff.ts";

test("delays double from the base up to the cap, keep a random half, and end after the last attempt", () => {
  const policy = { baseMs: 1000, capMs: 8000, maxAttempts: 6 };
  expect([1, 2, 3, 4, 5].map((n) => nextAttemptAt(policy, n, 0, () => 1))).toEqual([1000, 2000, 4000, 8000, 8000]);
  expect([1, 2, 3, 4, 5].map((n) => nextAttemptAt(policy, n, 0, () => 0))).toEqual([500, 1000, 2000, 4000, 4000]);
  expect(nextAttemptAt(policy, 6, 0)).toBeNull();
});
