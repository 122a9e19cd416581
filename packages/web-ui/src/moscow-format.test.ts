import { expect, test } from "bun:test";
import { formatDay, formatMoscow, formatMoscowLong } from "./moscow-format.ts";

test("instants read in Moscow time, three hours ahead of UTC all year", () => {
  expect(formatMoscow("2026-11-22T11:05:09.000Z", "ru")).toBe("22.11.2026 14:05");
  expect(formatMoscow("2026-07-01T22:30:00.000Z", "en")).toBe("2026-07-02 01:30");
  expect(formatMoscow(Date.parse("2026-12-31T21:00:00.000Z"), "ru")).toBe("01.01.2027 00:00");
});

test("the long form for buyers is labelled Moscow time (UTC+3, no daylight saving)", () => {
  expect(formatMoscowLong("2026-11-24T04:15:09.000Z", "ru")).toBe("24 ноября 2026 г. в 07:15 МСК");
  expect(formatMoscowLong("2026-11-24T04:15:09.000Z", "en")).toBe("24 November 2026 at 07:15 Moscow time");
  expect(formatMoscowLong("2026-12-31T22:30:00.000Z", "ru")).toBe("1 января 2027 г. в 01:30 МСК");
  expect(formatMoscowLong("2026-07-01T20:59:00.000Z", "en")).toBe("1 July 2026 at 23:59 Moscow time");
});

test("days are shown the local way", () => {
  expect(formatDay("2026-11-22", "ru")).toBe("22.11.2026");
  expect(formatDay("2026-11-22", "en")).toBe("2026-11-22");
});
