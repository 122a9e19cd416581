import { describe, expect, test } from "bun:test";
import type { ThrottleRow } from "../store/schema.ts";
import { afterFailure, EMAIL_POLICY, lockedUntil } from "./throttle.ts";

const KEY = "email:owner@example.com";
const T0 = Date.UTC(2026, 0, 10, 12);

/** Fails `n` times, each one just after the previous lock ended. */
function failRepeatedly(n: number, start = T0): { row: ThrottleRow; at: number } {
  let row: ThrottleRow | undefined;
  let at = start;
  for (let i = 0; i < n; i++) {
    at = Math.max(at + 1000, row?.lockedUntil ?? 0);
    row = afterFailure(row, KEY, EMAIL_POLICY, at);
  }
  return { row: row!, at };
}

describe("sign-in throttle", () => {
  test("four failures lock nothing; the fifth locks for 30 seconds", () => {
    expect(failRepeatedly(4).row.lockedUntil).toBe(0);
    const { row, at } = failRepeatedly(5);
    expect(row.lockedUntil).toBe(at + 30_000);
    expect(lockedUntil(row, at + 29_999)).toBe(at + 30_000);
    expect(lockedUntil(row, at + 30_000)).toBe(0);
  });

  test("each further failure doubles the lock, up to 15 minutes", () => {
    const locks = [5, 6, 7, 8, 9, 10, 11].map((n) => {
      const { row, at } = failRepeatedly(n);
      return row.lockedUntil - at;
    });
    expect(locks).toEqual([30_000, 60_000, 120_000, 240_000, 480_000, 900_000, 900_000]);
  });

  test("a key quiet for more than an hour starts again from zero", () => {
    const { row, at } = failRepeatedly(7);
    const later = afterFailure(row, KEY, EMAIL_POLICY, at + 60 * 60_000 + 1);
    expect(later.failures).toBe(1);
    expect(later.lockedUntil).toBe(0);
  });
});
