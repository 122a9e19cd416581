import { expect, test } from "bun:test";
import { settledWithin } from "./copies.ts";

/** A row read again and again: its states in turn, then the last one for good. */
const readings = (...states: string[]) => {
  let reads = 0;
  return { reload: async () => states[Math.min(reads++, states.length - 1)], reads: () => reads };
};
const ended = (s: string) => s !== "PENDING";

test("a state already settled is answered without reading again", async () => {
  const r = readings("PENDING");
  expect(await settledWithin("SUCCEEDED", r.reload, ended, 5_000)).toBe("SUCCEEDED");
  expect(r.reads()).toBe(0);
});

test("a state not settled is read again until it is", async () => {
  const r = readings("PENDING", "PENDING", "SUCCEEDED");
  expect(await settledWithin("PENDING", r.reload, ended, 30_000)).toBe("SUCCEEDED");
  expect(r.reads()).toBe(3);
});

test("without time to wait, the state is answered as it is", async () => {
  const r = readings("SUCCEEDED");
  expect(await settledWithin("PENDING", r.reload, ended, 0)).toBe("PENDING");
  expect(r.reads()).toBe(0);
});

test("once the time is up, the last state read is answered, settled or not", async () => {
  const r = readings("PENDING");
  expect(await settledWithin("PENDING", r.reload, ended, 300)).toBe("PENDING");
  // Bounded by the time given: at most one read per 50 ms of it.
  expect(r.reads()).toBeLessThanOrEqual(6);
});

test("a read that finds nothing keeps the last state", async () => {
  let reads = 0;
  const reload = async () => (++reads === 1 ? undefined : "FAILED");
  expect(await settledWithin("PENDING", reload, ended, 30_000)).toBe("FAILED");
});
