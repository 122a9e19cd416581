import { expect, test } from "bun:test";
import { ShopFailures } from "./shop-failures.ts";

const MINUTE = 60_000;

function tracker() {
  let t = 0;
  const failures = new ShopFailures(() => t);
  const attempts = (shopId: string, failed: number, delivered = 0) => {
    for (let i = 0; i < failed; i++) failures.record(shopId, true);
    for (let i = 0; i < delivered; i++) failures.record(shopId, false);
  };
  return { failures, attempts, advance: (ms: number) => (t += ms) };
}

test("a shop fails when more than half of at least five attempts in the last hour failed", () => {
  const { failures, attempts } = tracker();
  attempts("failing", 5, 1);
  attempts("too-few", 4);
  attempts("half", 5, 5);
  attempts("healthy", 0, 50);
  expect(failures.failing(5)).toEqual({ count: 1, worst: [{ shopId: "failing", sent: 6, failed: 5, ratio: 5 / 6 }] });
});

test("attempts older than the hour no longer count", () => {
  const { failures, attempts, advance } = tracker();
  attempts("a", 3);
  advance(40 * MINUTE);
  attempts("a", 3);
  expect(failures.failing(5).count).toBe(1);
  advance(26 * MINUTE);
  // The first three are over an hour old: three failed attempts are too few to judge.
  expect(failures.failing(5).count).toBe(0);
  attempts("a", 2);
  expect(failures.failing(5).worst).toEqual([{ shopId: "a", sent: 5, failed: 5, ratio: 1 }]);
});

test("only the few failing most are named; the count has them all", () => {
  const { failures, attempts } = tracker();
  for (let i = 1; i <= 8; i++) attempts(`shop-${i}`, 5 + i);
  const { count, worst } = failures.failing(3);
  expect(count).toBe(8);
  expect(worst.map((w) => w.shopId)).toEqual(["shop-8", "shop-7", "shop-6"]);
});

test("what it keeps is bounded however many shops attempt: the least recently attempted is forgotten", () => {
  const { failures, attempts } = tracker();
  for (let i = 0; i < 10_005; i++) attempts(`shop-${i}`, 5);
  expect(failures.failing(1).count).toBe(10_000);
  // shop-0 was forgotten when the 10,001st shop came: its next failed attempt starts afresh, too
  // few to judge, and pushes out the least recent kept (shop-5).
  attempts("shop-0", 1);
  expect(failures.failing(1).count).toBe(9_999);
  // A kept shop attempted again keeps its history, and nothing more is kept.
  attempts("shop-6", 1);
  const { count, worst } = failures.failing(10_000);
  expect(count).toBe(9_999);
  expect(worst.find((w) => w.shopId === "shop-6")).toEqual({ shopId: "shop-6", sent: 6, failed: 6, ratio: 1 });
});
