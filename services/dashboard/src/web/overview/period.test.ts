import { expect, test } from "bun:test";
import { lastDays, periodProblems, readOverviewQuery } from "./period.ts";

const now = Date.parse("2026-03-10T22:00:00Z"); // March 11th in Moscow

test("the default is the last 30 Moscow days up to today", () => {
  expect(readOverviewQuery(() => undefined, now)).toEqual({ from: "2026-02-10", to: "2026-03-11", shopId: "" });
  expect(lastDays(7, now)).toEqual({ from: "2026-03-05", to: "2026-03-11" });
});

test("bad, reversed and too long periods are named", () => {
  const q = (from: string, to: string) => periodProblems({ from, to, shopId: "" });
  expect(q("2026-03-01", "2026-03-31")).toEqual([]);
  expect(q("01.03.2026", "2026-02-30")).toEqual(["badFrom", "badTo"]);
  expect(q("2026-03-02", "2026-03-01")).toEqual(["fromAfterTo"]);
  expect(q("2026-01-01", "2026-04-03")).toEqual([]);
  expect(q("2026-01-01", "2026-04-04")).toEqual(["periodTooLong"]);
});
