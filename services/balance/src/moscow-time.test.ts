import { describe, expect, test } from "bun:test";
import { lastReleasedDay, moscowDay } from "./moscow-time.ts";

describe("moscowDay", () => {
  test("22:30 UTC is already the next day in Moscow", () => {
    expect(moscowDay(Date.parse("2025-03-10T22:30:00Z"))).toBe("2025-03-11");
  });

  test("Moscow midnight is 21:00 UTC of the day before, to the millisecond", () => {
    expect(moscowDay(Date.parse("2025-03-10T20:59:59.999Z"))).toBe("2025-03-10");
    expect(moscowDay(Date.parse("2025-03-10T21:00:00.000Z"))).toBe("2025-03-11");
  });

  test("a year boundary moves with Moscow time, not UTC", () => {
    expect(moscowDay(Date.parse("2024-12-31T21:00:00Z"))).toBe("2025-01-01");
  });
});

describe("lastReleasedDay", () => {
  test("day D is released exactly at holdHour:00 Moscow time of D+1", () => {
    expect(lastReleasedDay(Date.parse("2025-03-11T11:59:59.999+03:00"), 12)).toBe("2025-03-09");
    expect(lastReleasedDay(Date.parse("2025-03-11T12:00:00.000+03:00"), 12)).toBe("2025-03-10");
  });

  test("holdHour 0 releases day D at Moscow midnight that ends it", () => {
    expect(lastReleasedDay(Date.parse("2025-03-10T23:59:59.999+03:00"), 0)).toBe("2025-03-09");
    expect(lastReleasedDay(Date.parse("2025-03-11T00:00:00.000+03:00"), 0)).toBe("2025-03-10");
  });
});
