import { describe, expect, test } from "bun:test";
import { isDay, lastReleasedDay, moscowDay, moscowDayBounds, moscowDayEnd, moscowDayStart, nextDay, releaseDayOf } from "./moscow-time.ts";

describe("moscowDay", () => {
  test("22:30 UTC is already the next day in Moscow", () => {
    expect(moscowDay(Date.parse("2025-03-10T22:30:00Z"))).toBe("2025-03-11");
  });

  test("Moscow midnight is 21:00 UTC of the day before, to the millisecond", () => {
    expect(moscowDay(Date.parse("2025-03-10T20:59:59.999Z"))).toBe("2025-03-10");
    expect(moscowDay(Date.parse("2025-03-10T21:00:00.000Z"))).toBe("2025-03-11");
  });

  test("a year boundary moves with Moscow time, not UTC; summer and winter alike", () => {
    expect(moscowDay(Date.parse("2024-12-31T21:00:00Z"))).toBe("2025-01-01");
    expect(moscowDay(Date.parse("2026-07-01T20:59:59.999Z"))).toBe("2026-07-01");
    expect(moscowDay(Date.parse("2026-07-01T21:00:00.000Z"))).toBe("2026-07-02");
  });
});

describe("Moscow days as periods", () => {
  test("a Moscow day runs from 21:00 UTC of the day before to a millisecond before the next", () => {
    expect(moscowDayBounds("2026-11-22")).toEqual({ first: "2026-11-21T21:00:00.000Z", last: "2026-11-22T20:59:59.999Z" });
    expect(moscowDayStart("2026-11-22")).toBe(Date.parse("2026-11-21T21:00:00.000Z"));
    expect(moscowDayEnd("2026-11-22")).toBe(Date.parse("2026-11-22T20:59:59.999Z"));
    expect(moscowDay(moscowDayStart("2026-11-22"))).toBe("2026-11-22");
    expect(moscowDay(moscowDayEnd("2026-11-22"))).toBe("2026-11-22");
    expect(moscowDay(moscowDayEnd("2026-11-22") + 1)).toBe("2026-11-23");
  });

  test("only real YYYY-MM-DD dates are days", () => {
    for (const bad of ["2026-02-30", "22.11.2026", "2026-11-22T00:00", "2026-1-2", ""]) {
      expect(moscowDayBounds(bad)).toBeUndefined();
      expect(isDay(bad)).toBe(false);
    }
  });

  test("the next day steps over month and year ends", () => {
    expect(nextDay("2026-02-28")).toBe("2026-03-01");
    expect(nextDay("2028-02-28")).toBe("2028-02-29");
    expect(nextDay("2026-12-31")).toBe("2027-01-01");
  });
});

describe("the hold of receipts", () => {
  test("day D is released exactly at holdHour:00 Moscow time of D+1", () => {
    expect(releaseDayOf("2025-03-10")).toBe("2025-03-11");
    expect(lastReleasedDay(Date.parse("2025-03-11T11:59:59.999+03:00"), 12)).toBe("2025-03-09");
    expect(lastReleasedDay(Date.parse("2025-03-11T12:00:00.000+03:00"), 12)).toBe("2025-03-10");
  });

  test("holdHour 0 releases day D at Moscow midnight that ends it", () => {
    expect(lastReleasedDay(Date.parse("2025-03-10T23:59:59.999+03:00"), 0)).toBe("2025-03-09");
    expect(lastReleasedDay(Date.parse("2025-03-11T00:00:00.000+03:00"), 0)).toBe("2025-03-10");
  });
});
