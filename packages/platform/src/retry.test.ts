import { describe, expect, test } from "bun:test";
import { retrying, retryDelayMs, spreadLater } from "./retry.ts";

const policy = { baseMs: 100, capMs: 1_000, maxAttempts: 6 };
/** The top of the range: Math.random never returns 1. */
const almostOne = () => 1 - Number.EPSILON;

describe("retryDelayMs", () => {
  test("the ceiling doubles from the base and stops at the cap", () => {
    expect([1, 2, 3, 4, 5].map((n) => retryDelayMs(policy, n, almostOne))).toEqual([99, 199, 399, 799, 999]);
    expect(retryDelayMs({ baseMs: 100, capMs: 1_000 }, 1_000, almostOne)).toBe(999);
  });

  test("full jitter: every pause lies in [0, ceiling), spread over the whole range", () => {
    const samples = Array.from({ length: 2_000 }, () => retryDelayMs(policy, 3)!);
    expect(Math.min(...samples)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...samples)).toBeLessThan(400);
    // Uniform: each quarter of the range holds a fair share (expected 500 each).
    const quarters = [0, 1, 2, 3].map((q) => samples.filter((s) => Math.floor(s / 100) === q).length);
    for (const n of quarters) expect(n).toBeGreaterThan(350);
    expect(retryDelayMs(policy, 3, () => 0)).toBe(0);
  });

  test("the budget counts every attempt: after maxAttempts failures there is no next pause", () => {
    expect(retryDelayMs(policy, 5, () => 0.5)).not.toBeNull();
    expect(retryDelayMs(policy, 6, () => 0.5)).toBeNull();
    expect(retryDelayMs({ ...policy, maxAttempts: 1 }, 1)).toBeNull();
    expect(retryDelayMs({ baseMs: 1, capMs: 1 }, Number.MAX_SAFE_INTEGER, almostOne)).toBe(0);
  });
});

describe("spreadLater", () => {
  test("never earlier than the pause, at most the fraction later", () => {
    expect(spreadLater(60_000, 0.1, () => 0)).toBe(60_000);
    expect(spreadLater(60_000, 0.1, almostOne)).toBe(65_999);
    const samples = Array.from({ length: 1_000 }, () => spreadLater(1_000, 0.1));
    expect(Math.min(...samples)).toBeGreaterThanOrEqual(1_000);
    expect(Math.max(...samples)).toBeLessThan(1_100);
  });
});

describe("retrying", () => {
  const fast = { baseMs: 1, capMs: 2, maxAttempts: 4 };

  test("returns the first success and reports each retry with its pause", async () => {
    const retries: number[] = [];
    const result = await retrying(fast, async (attempt) => {
      if (attempt < 3) throw new Error(`fail ${attempt}`);
      return attempt;
    }, { onRetry: (_, failures) => retries.push(failures) });
    expect(result).toBe(3);
    expect(retries).toEqual([1, 2]);
  });

  test("throws the last error once the budget is spent", async () => {
    let calls = 0;
    const err = await retrying(fast, async () => {
      throw new Error(`fail ${++calls}`);
    }).catch((e: Error) => e);
    expect((err as Error).message).toBe("fail 4");
    expect(calls).toBe(4);
  });

  test("stops without another attempt once stopped says so", async () => {
    let calls = 0;
    const err = await retrying({ baseMs: 1, capMs: 1 }, async () => {
      throw new Error(`fail ${++calls}`);
    }, { stopped: () => calls >= 2 }).catch((e: Error) => e);
    expect((err as Error).message).toBe("fail 2");
  });
});
