import { expect, test } from "bun:test";
import { formatDay, formatMoscow, moscowDate, moscowDayBounds, nextDay } from "./moscow-time.ts";

test("instants read in Moscow time, three hours ahead of UTC all year", () => {
  expect(formatMoscow("2026-11-22T11:05:09.000Z", "ru")).toBe("22.11.2026 14:05");
  expect(formatMoscow("2026-07-01T22:30:00.000Z", "en")).toBe("2026-07-02 01:30");
  expect(moscowDate(Date.parse("2026-12-31T21:00:00.000Z"))).toBe("2027-01-01");
  expect(moscowDate(Date.parse("2026-12-31T20:59:59.999Z"))).toBe("2026-12-31");
});

test("a Moscow day runs from 21:00 UTC of the day before to a millisecond before the next", () => {
  expect(moscowDayBounds("2026-11-22")).toEqual({ first: "2026-11-21T21:00:00.000Z", last: "2026-11-22T20:59:59.999Z" });
  expect(moscowDayBounds("2026-02-30")).toBeUndefined();
  expect(moscowDayBounds("22.11.2026")).toBeUndefined();
  expect(moscowDayBounds("2026-11-22T00:00")).toBeUndefined();
});

test("days are shown the local way and step over month ends", () => {
  expect(formatDay("2026-11-22", "ru")).toBe("22.11.2026");
  expect(formatDay("2026-11-22", "en")).toBe("2026-11-22");
  expect(nextDay("2026-02-28")).toBe("2026-03-01");
  expect(nextDay("2026-12-31")).toBe("2027-01-01");
});
