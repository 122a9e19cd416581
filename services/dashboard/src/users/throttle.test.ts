import { describe, expect, test } from "bun:test";
import type { ThrottleRow } from "../store/schema.ts";
import { ADDRESS_POLICY, afterFailure, claimAttempt, EMAIL_POLICY, givenBack, lockedUntil } from "./throttle.ts";

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

describe("attempts counted at their start", () => {
  const ADDRESS = "ip:203.0.113.1";
  const keys: [string, typeof EMAIL_POLICY][] = [
    [KEY, EMAIL_POLICY],
    [ADDRESS, ADDRESS_POLICY],
  ];

  test("an attempt is counted on both keys before its password is checked; a locked key refuses it and counts nothing", () => {
    const claim = claimAttempt([undefined, undefined], keys, T0);
    expect(claim.result.kind).toBe("counted");
    expect(claim.save.map((r) => [r.key, r.failures])).toEqual([
      [KEY, 1],
      [ADDRESS, 1],
    ]);
    const { row } = failRepeatedly(5);
    const refused = claimAttempt([row, undefined], keys, row.lastFailureAt + 1);
    expect(refused).toEqual({ save: [], clear: [], result: { kind: "locked", until: row.lockedUntil } });
  });

  test("a right password gives its count back: the row as it was when nothing came since, else one count less", () => {
    const before = afterFailure(undefined, ADDRESS, ADDRESS_POLICY, T0);
    const claimed = afterFailure(before, ADDRESS, ADDRESS_POLICY, T0 + 1000);
    expect(givenBack(ADDRESS, claimed, before, T0 + 1000).save).toEqual([before]);
    expect(givenBack(ADDRESS, claimed, undefined, T0 + 1000)).toEqual({ save: [], clear: [ADDRESS], result: undefined });
    const laterFailure = afterFailure(claimed, ADDRESS, ADDRESS_POLICY, T0 + 2000);
    expect(givenBack(ADDRESS, laterFailure, before, T0 + 1000).save).toEqual([{ ...laterFailure, failures: laterFailure.failures - 1 }]);
  });
});
