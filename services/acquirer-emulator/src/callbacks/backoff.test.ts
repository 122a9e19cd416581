import { expect, test } from "bun:test";
import { nextAttemptAt } from "./backoff.ts";

test("retry delays double from the base, stop growing at the cap, and end after the last attempt", () => {
  const policy = { baseMs: 1000, capMs: 30000, maxAttempts: 8 };
  const delays = [1, 2, 3, 4, 5, 6, 7].map((failed) => nextAttemptAt(policy, failed, 0));
  expect(delays).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000]);
  expect(nextAttemptAt(policy, 8, 0)).toBeNull();
});
