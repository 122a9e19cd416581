import { describe, expect, test } from "bun:test";
import { Batcher } from "./batcher.ts";

describe("Batcher", () => {
  test("what is added in one turn is one batch, in order; what comes while it runs is the next one", async () => {
    const batches: number[][] = [];
    let release!: () => void;
    const batcher = new Batcher<number, string>(async (items) => {
      batches.push(items);
      if (batches.length === 1) await new Promise<void>((r) => (release = r));
      return items.map((i) => `done ${i}`);
    }, 100);
    const first = [1, 2, 3].map((i) => batcher.add(i));
    await Bun.sleep(1);
    const second = [4, 5].map((i) => batcher.add(i));
    await Bun.sleep(1);
    expect(batches).toEqual([[1, 2, 3]]);
    release();
    expect(await Promise.all([...first, ...second])).toEqual(["done 1", "done 2", "done 3", "done 4", "done 5"]);
    expect(batches).toEqual([[1, 2, 3], [4, 5]]);
  });

  test("a batch holds at most max items", async () => {
    const sizes: number[] = [];
    const batcher = new Batcher<number, number>(async (items) => (sizes.push(items.length), items), 4);
    expect(await Promise.all(Array.from({ length: 10 }, (_, i) => batcher.add(i)))).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(sizes).toEqual([4, 4, 2]);
  });

  test("a failed batch is run again item by item: only the item that cannot be done fails", async () => {
    const runs: number[][] = [];
    const batcher = new Batcher<number, number>(async (items) => {
      runs.push(items);
      if (items.includes(2)) throw new Error("cannot apply 2");
      return items.map((i) => i * 10);
    }, 100);
    const outcomes = await Promise.allSettled([1, 2, 3].map((i) => batcher.add(i)));
    expect(outcomes.map((o) => (o.status === "fulfilled" ? o.value : (o.reason as Error).message))).toEqual([10, "cannot apply 2", 30]);
    expect(runs).toEqual([[1, 2, 3], [1], [2], [3]]);
  });

  test("a store that fails every item alone (down, not refusing one) is given up after three in a row: the rest fail unrun", async () => {
    const runs: number[][] = [];
    const batcher = new Batcher<number, number>(async (items) => {
      runs.push(items);
      throw new Error("statement timeout");
    }, 100);
    const outcomes = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => batcher.add(i)));
    expect(outcomes.every((o) => o.status === "rejected" && (o.reason as Error).message === "statement timeout")).toBe(true);
    expect(runs).toEqual([[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [0], [1], [2]]);
  });

  test("bad items apart from each other still fail alone, whatever their number", async () => {
    const batcher = new Batcher<number, number>(async (items) => {
      if (items.some((i) => i % 2 === 1)) throw new Error("odd");
      return items;
    }, 100);
    const outcomes = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => batcher.add(i)));
    expect(outcomes.map((o) => o.status)).toEqual(Array.from({ length: 10 }, (_, i) => (i % 2 === 1 ? "rejected" : "fulfilled")));
  });
});
