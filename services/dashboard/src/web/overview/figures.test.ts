import { expect, test } from "bun:test";
import { daysOf, healthFigures, overviewFigures, percent } from "./figures.ts";

test("days with nothing paid are zero; REFUNDED counts as paid, refunds come from their own rollup; rates only over decided attempts", () => {
  const f = overviewFigures(
    {
      rows: [
      { day: "2026-02-28", method: "SBP", status: "SUCCESS", count: 1, sumKopecks: 100 },
      { day: "2026-03-01", method: "SBP", status: "SUCCESS", count: 3, sumKopecks: 3000 },
      { day: "2026-03-01", method: "SBP", status: "REFUNDED", count: 1, sumKopecks: 500 },
      { day: "2026-03-01", method: "SBP", status: "FAILED", count: 1, sumKopecks: 700 },
      { day: "2026-03-01", method: "CARD", status: "PENDING", count: 2, sumKopecks: 40 },
      { day: "2026-03-02", method: null, status: "CREATED", count: 5, sumKopecks: 10 },
      { day: "2026-03-02", method: "CARD", status: "EXPIRED", count: 1, sumKopecks: 10 },
      ],
      refunds: [
        { day: "2026-03-01", count: 2, sumKopecks: 650 },
        { day: "2026-03-03", count: 1, sumKopecks: 100 },
      ],
    },
    "2026-02-28",
    "2026-03-03",
  );
  expect(f.days).toEqual([
    { day: "2026-02-28", count: 1, sumKopecks: 100 },
    { day: "2026-03-01", count: 4, sumKopecks: 3500 },
    { day: "2026-03-02", count: 0, sumKopecks: 0 },
    { day: "2026-03-03", count: 0, sumKopecks: 0 },
  ]);
  expect(f.created).toBe(14);
  expect(f.paid).toEqual({ count: 5, sumKopecks: 3600 });
  expect(f.refunds).toEqual({ count: 3, sumKopecks: 750 });
  expect(f.methods).toEqual([
    { method: "SBP", paid: 5, decided: 6 },
    { method: "CARD", paid: 0, decided: 1 },
  ]);
});

test("health sums the shops' first attempts, names the failing ones, and keeps the shops without a URL apart", () => {
  const none = { lastError: null, lastErrorCode: null, lastErrorParams: null };
  const ok = { shopId: "a", total: 10, firstSent: 10, firstAttempt: 9, delivered: 10, unsent: 0, failed: 0, retrying: 0, ...none };
  const bad = { shopId: "b", total: 5, firstSent: 5, firstAttempt: 1, delivered: 2, unsent: 0, failed: 2, retrying: 1, lastError: "HTTP 500", lastErrorCode: "WEBHOOK_HTTP_STATUS" as const, lastErrorParams: { httpStatus: 500 } };
  const noUrl = { shopId: "c", total: 0, firstSent: 0, firstAttempt: 0, delivered: 0, unsent: 4, failed: 0, retrying: 0, ...none };
  expect(healthFigures([ok, bad, noUrl])).toEqual({ firstSent: 15, firstAttempt: 10, failing: [bad], unsent: [noUrl] });
  expect(percent(10, 15)).toBe(67);
  expect(percent(0, 0)).toBeUndefined();
  expect(daysOf("2026-12-31", "2027-01-01")).toEqual(["2026-12-31", "2027-01-01"]);
});
