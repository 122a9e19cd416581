import { expect, test } from "bun:test";
import { filterQuery, planQuery, readFilter, type PaymentFilter } from "./payment-filter.ts";

const reading = (params: string) => {
  const q = new URLSearchParams(params);
  return readFilter((n) => q.get(n) ?? undefined, (n) => q.getAll(n));
};

test("Moscow dates become the API's inclusive UTC period; statuses keep their canonical order", () => {
  const filter = reading("from=2026-11-01&to=2026-11-30&status=REFUNDED&status=SUCCESS&status=BOGUS&page=3");
  expect(filter.statuses).toEqual(["SUCCESS", "REFUNDED"]);
  expect(planQuery(filter)).toEqual({
    kind: "list",
    period: { from: "2026-10-31T21:00:00.000Z", to: "2026-11-30T20:59:59.999Z", status: ["SUCCESS", "REFUNDED"] },
    days: { fromDay: "2026-11-01", toDay: "2026-11-30" },
    page: 3,
  });
});

test("an order number is a lookup that ignores everything else", () => {
  expect(planQuery(reading("orderId=%20A-17%20&from=garbage"))).toEqual({ kind: "lookup", orderId: "A-17" });
});

test("bad dates and a reversed period are reported, not sent", () => {
  expect(planQuery(reading("from=2026-13-01&to=yesterday"))).toEqual({ kind: "invalid", problems: ["badFrom", "badTo"] });
  expect(planQuery(reading("from=2026-11-02&to=2026-11-01"))).toEqual({ kind: "invalid", problems: ["fromAfterTo"] });
  expect(planQuery(reading("from=2026-11-01&to=2026-11-01")).kind).toBe("list");
});

test("a page outside 1..10000 reads as the first", () => {
  expect(reading("page=0").page).toBe(1);
  expect(reading("page=10001").page).toBe(1);
  expect(reading("page=2.5").page).toBe(1);
});

test("newest first unless another known order is asked for", () => {
  expect(reading("").sort).toBe("created_desc");
  expect(reading("sort=amount_asc").sort).toBe("amount_asc");
  expect(reading("sort=random()").sort).toBe("created_desc");
});

test("links carry the filter and drop what is empty or default", () => {
  const f: PaymentFilter = { from: "2026-11-01", to: "", statuses: ["SUCCESS", "FAILED"], orderId: "", sort: "created_desc", page: 1 };
  expect(filterQuery(f, { page: 2 })).toBe("?from=2026-11-01&status=SUCCESS&status=FAILED&page=2");
  expect(filterQuery(f, { sort: "amount_desc" })).toBe("?from=2026-11-01&status=SUCCESS&status=FAILED&sort=amount_desc");
  expect(filterQuery({ ...f, from: "", statuses: [] })).toBe("");
});
