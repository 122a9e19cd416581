import { describe, expect, test } from "bun:test";
import { ListPaymentsQuery } from "@payaccept/contracts";
import { planList } from "./list-plan.ts";

const q = (raw: Record<string, string>) => ListPaymentsQuery.parse(raw);

describe("planList without a status filter", () => {
  test("page 1 of a shop is the first seqs, total is the last seq", () => {
    expect(planList(q({}), { lastSeq: 45 })).toEqual({ kind: "seqRange", first: 1, last: 20, total: 45 });
  });

  test("the last page is cut at the last seq", () => {
    expect(planList(q({ page: "3" }), { lastSeq: 45 })).toEqual({ kind: "seqRange", first: 41, last: 45, total: 45 });
  });

  test("a page past the end is empty but keeps the total", () => {
    expect(planList(q({ page: "4" }), { lastSeq: 45 })).toEqual({ kind: "empty", total: 45 });
  });

  test("the deepest page of a million payments is a seq range, not a scan", () => {
    expect(planList(q({ page: "10000", limit: "100" }), { lastSeq: 1_000_000 })).toEqual({
      kind: "seqRange",
      first: 999_901,
      last: 1_000_000,
      total: 1_000_000,
    });
  });

  test("a time window narrows to its seq bounds and counts inclusively", () => {
    expect(planList(q({ from: "2026-01-01T00:00:00Z", to: "2026-01-02T00:00:00Z", limit: "10", page: "2" }), { lastSeq: 100, fromSeq: 31, toSeq: 55 })).toEqual({
      kind: "seqRange",
      first: 41,
      last: 50,
      total: 25,
    });
  });

  test("a window with nothing on one side is empty", () => {
    expect(planList(q({ from: "2030-01-01T00:00:00Z" }), { lastSeq: 100, fromSeq: null })).toEqual({ kind: "empty", total: 0 });
    expect(planList(q({ to: "2020-01-01T00:00:00Z" }), { lastSeq: 100, toSeq: null })).toEqual({ kind: "empty", total: 0 });
    expect(planList(q({}), { lastSeq: 0 })).toEqual({ kind: "empty", total: 0 });
  });

  test("a window between two payments is empty", () => {
    expect(planList(q({ from: "2026-01-01T00:00:00Z", to: "2026-01-01T00:00:01Z" }), { lastSeq: 10, fromSeq: 6, toSeq: 5 })).toEqual({
      kind: "empty",
      total: 0,
    });
  });
});

describe("planList with a status filter", () => {
  test("whole shop: totals from the counters, walk from the offset", () => {
    expect(planList(q({ status: "SUCCESS,FAILED", page: "3", limit: "10" }), { lastSeq: 500 })).toEqual({
      kind: "statusWalk",
      statuses: ["SUCCESS", "FAILED"],
      first: 1,
      last: 500,
      offset: 20,
      limit: 10,
      total: "counters",
    });
  });

  test("with a time window: counted within the window", () => {
    const plan = planList(q({ status: "CREATED", from: "2026-01-01T00:00:00Z" }), { lastSeq: 500, fromSeq: 200 });
    expect(plan).toMatchObject({ kind: "statusWalk", first: 200, last: 500, total: "count" });
  });
});
