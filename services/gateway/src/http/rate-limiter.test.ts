import { describe, expect, test } from "bun:test";
import { replicaShare, sharesFit, SlidingWindowLimiter } from "./rate-limiter.ts";

function limiter(limit: number, maxKeys = 1000) {
  const clock = { t: 1_000_000 };
  const l = new SlidingWindowLimiter(limit, { windowMs: 60_000, maxKeys, now: () => clock.t });
  return { l, clock };
}
const hits = (l: SlidingWindowLimiter, key: string, n: number) => Array.from({ length: n }, () => l.hit(key));

describe("SlidingWindowLimiter", () => {
  test("allows the limit within a window, then refuses with the time to wait", () => {
    const { l, clock } = limiter(3);
    expect(hits(l, "k", 3).map((d) => [d.allowed, d.remaining])).toEqual([
      [true, 2],
      [true, 1],
      [true, 0],
    ]);
    clock.t += 15_000;
    const refused = l.hit("k");
    expect(refused).toMatchObject({ allowed: false, limit: 3, remaining: 0, resetSeconds: 45 });
    // The full window must first turn into the previous one and decay by one request's worth.
    expect(refused.retryAfterSeconds).toBe(45 + 20);
  });

  test("refused requests do not count", () => {
    const { l, clock } = limiter(2);
    hits(l, "k", 10);
    clock.t += 60_000 + 30_000;
    // previous window: 2 → weighs 1 at half-way; one more fits.
    expect(l.hit("k").allowed).toBe(true);
    expect(l.hit("k").allowed).toBe(false);
  });

  test("the previous window decays instead of resetting at the boundary", () => {
    const { l, clock } = limiter(10);
    hits(l, "k", 10);
    clock.t += 60_000;
    expect(l.hit("k").allowed).toBe(false);
    clock.t += 30_000;
    expect(hits(l, "k", 6).map((d) => d.allowed)).toEqual([true, true, true, true, true, false]);
    clock.t += 120_000;
    expect(hits(l, "k", 10).every((d) => d.allowed)).toBe(true);
  });

  test("keys are counted separately", () => {
    const { l } = limiter(1);
    expect(l.hit("a").allowed).toBe(true);
    expect(l.hit("b").allowed).toBe(true);
    expect(l.hit("a").allowed).toBe(false);
  });

  test("memory stays bounded: idle keys are swept and the oldest is dropped past maxKeys", () => {
    const { l, clock } = limiter(5, 3);
    for (const k of ["a", "b", "c", "d"]) l.hit(k);
    expect(l.size).toBe(3);
    clock.t += 121_000;
    l.hit("e");
    expect(l.size).toBe(1);
  });
});

describe("SlidingWindowLimiter over several replicas", () => {
  test("each of N replicas enforces ⌈limit / N⌉ and reports totals", () => {
    const clock = { t: 1_000_000 };
    const l = new SlidingWindowLimiter(10, { windowMs: 60_000, maxKeys: 10, replicas: 3, now: () => clock.t });
    const decisions = hits(l, "k", 5);
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, true, false]);
    expect(decisions.map((d) => d.remaining)).toEqual([9, 6, 3, 0, 0]);
    expect(decisions.every((d) => d.limit === 10)).toBe(true);
  });

  test("the shares may overshoot the limit by at most 10 %", () => {
    expect(sharesFit(600, 2)).toBe(true);
    expect(sharesFit(60, 11)).toBe(true); // 6 × 11 = 66
    expect(sharesFit(60, 25)).toBe(false); // 3 × 25 = 75
    expect(replicaShare(2000, 3)).toBe(667);
  });
});
