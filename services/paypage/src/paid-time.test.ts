import { expect, test } from "bun:test";
import { formatMoscowTime, shortReference } from "./paid-time.ts";

test("payment times are shown in Moscow time (UTC+3, no daylight saving), labelled", () => {
  expect(formatMoscowTime("2026-11-24T04:15:09.000Z", "ru")).toBe("24 ноября 2026 г. в 07:15 МСК");
  expect(formatMoscowTime("2026-11-24T04:15:09.000Z", "en")).toBe("24 November 2026 at 07:15 Moscow time");
  expect(formatMoscowTime("2026-12-31T22:30:00.000Z", "ru")).toBe("1 января 2027 г. в 01:30 МСК");
});

test("the short reference is the random end of the id, not its time-ordered start", () => {
  expect(shortReference("0198f0c4-6c1e-7a3b-9d2e-4f5a6b7c8d9e")).toBe("6B7C-8D9E");
});
