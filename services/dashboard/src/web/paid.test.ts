import { expect, test } from "bun:test";
import { paidOf } from "./paid.ts";

test("what was paid of a set: SUCCESS and REFUNDED, before refunds; unpaid, declined and canceled add nothing", () => {
  expect(
    paidOf([
      { status: "CANCELED", count: 2, sumKopecks: 900 },
      { status: "CREATED", count: 1, sumKopecks: 12_300 },
      { status: "FAILED", count: 1, sumKopecks: 55_000 },
      { status: "REFUNDED", count: 1, sumKopecks: 70_000 },
      { status: "SUCCESS", count: 2, sumKopecks: 350_050 },
    ]),
  ).toEqual({ count: 3, sumKopecks: 420_050 });
  expect(paidOf([{ status: "CREATED", count: 5, sumKopecks: 100 }])).toEqual({ count: 0, sumKopecks: 0 });
});
