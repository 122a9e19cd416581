import { expect, test } from "bun:test";
import { createLogger } from "./log.ts";
import { registry } from "./metrics.ts";
import { followServerClock, storeNow } from "./store-clock.ts";

type Line = { level: number; msg: string; peer?: string; offsetSeconds?: number };

test("storeNow() follows a server 60 s ahead of this host, carried on the monotonic clock; the offset is the metric and a warning", async () => {
  expect(Math.abs(storeNow() - Date.now())).toBeLessThan(5);
  const lines: Line[] = [];
  const log = createLogger("store-clock-test", "info", { write: (s: string) => void lines.push(JSON.parse(s)) });
  const stop = await followServerClock(async () => Date.now() + 60_000, "postgres:TEST_DATABASE_URL", log, 500);
  try {
    expect(Math.abs(storeNow() - (Date.now() + 60_000))).toBeLessThan(50);
    expect(Number.isInteger(storeNow())).toBe(true);
    await Bun.sleep(100);
    expect(Math.abs(storeNow() - (Date.now() + 60_000))).toBeLessThan(50);
    const offset = (await registry.getSingleMetric("clock_offset_seconds")?.get())?.values.find((v) => v.labels.peer === "postgres:TEST_DATABASE_URL");
    expect(offset?.value).toBeCloseTo(60, 1);
    expect(lines.find((l) => l.level === 40)).toMatchObject({ peer: "postgres:TEST_DATABASE_URL", offsetSeconds: expect.closeTo(60, 1) });
  } finally {
    stop();
  }
  // Stopped (the store closed): the host's clock again, and the series is gone.
  expect(Math.abs(storeNow() - Date.now())).toBeLessThan(5);
  expect((await registry.getSingleMetric("clock_offset_seconds")?.get())?.values.some((v) => v.labels.peer === "postgres:TEST_DATABASE_URL")).toBe(false);
});
