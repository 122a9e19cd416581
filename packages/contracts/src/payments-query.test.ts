import { describe, expect, test } from "bun:test";
import { formatIssues, issuesOf } from "./errors.ts";
import { PaymentsQuery } from "./payments-query.ts";

const problems = (q: Record<string, string | string[]>) => {
  const r = PaymentsQuery.safeParse(q);
  return r.success ? [] : formatIssues(r.error);
};

describe("PaymentsQuery", () => {
  test("orderId selects lookup mode and every other parameter is ignored, even invalid ones", () => {
    expect(PaymentsQuery.parse({ orderId: "A-1", page: "0", status: "NOPE", from: "x" })).toEqual({ mode: "lookup", orderId: "A-1" });
  });

  test("a bad orderId is reported, not treated as a list", () => {
    expect(problems({ orderId: "" })).toEqual([expect.stringMatching(/^orderId: /)]);
    expect(problems({ orderId: "x".repeat(65) })).toHaveLength(1);
    expect(problems({ orderId: ["a", "b"] })).toHaveLength(1);
  });

  test("list mode forwards only the list parameters, as given", () => {
    expect(PaymentsQuery.parse({ status: "SUCCESS,CANCELED", page: "2", limit: "5", junk: "1" })).toEqual({
      mode: "list",
      query: { status: "SUCCESS,CANCELED", page: "2", limit: "5" },
    });
    expect(PaymentsQuery.parse({})).toEqual({ mode: "list", query: {} });
  });

  test("list mode lists every problem at once", () => {
    const p = problems({ from: "2026-02-01T00:00:00Z", to: "2026-01-01T00:00:00Z", status: "PAID", page: "0", limit: "101" });
    expect(p).toHaveLength(4);
    expect(p.join("\n")).toContain("from: must not be later than to");
    expect(problems({ from: "yesterday", status: "SUCCESS,", page: "1.5" })).toHaveLength(2);
  });

  test("each problem keeps its zod code, limits and our rule, as a body's do", () => {
    const r = PaymentsQuery.safeParse({ from: "2026-02-01T00:00:00Z", to: "2026-01-01T00:00:00Z", page: "0", status: "PAID" });
    expect(r.success).toBe(false);
    const issues = issuesOf(r.error!).map(({ path, issue, params }) => ({ path, issue, params }));
    expect(issues).toEqual(
      expect.arrayContaining([
        { path: "page", issue: "too_small", params: { origin: "number", minimum: 1, inclusive: true } },
        { path: "from", issue: "custom", params: { rule: "FROM_AFTER_TO" } },
        { path: "status", issue: "custom", params: expect.objectContaining({ rule: "UNKNOWN_STATUS", values: "PAID" }) },
      ]),
    );
    expect(issuesOf(PaymentsQuery.safeParse({ orderId: "" }).error!)[0]).toMatchObject({ path: "orderId", issue: "too_small", params: { minimum: 1 } });
  });
});
