import { expect, test } from "bun:test";
import { Ticker } from "./ticker.ts";

test("runs at start and then every tick, never two runs at once; stop waits for the run in flight; a failure is reported and the next tick goes on", async () => {
  let runs = 0;
  let inFlight = 0;
  let most = 0;
  const errors: unknown[] = [];
  const ticker = new Ticker(
    async () => {
      runs++;
      inFlight++;
      most = Math.max(most, inFlight);
      await Bun.sleep(15);
      inFlight--;
      if (runs === 2) throw new Error("boom");
    },
    5,
    (err) => errors.push(err),
  );
  ticker.start();
  for (let i = 0; i < 200 && runs < 3; i++) await Bun.sleep(10);
  await ticker.stop();
  const after = runs;
  expect(after).toBeGreaterThanOrEqual(3);
  expect(most).toBe(1);
  expect(inFlight).toBe(0);
  expect(errors.map((e) => (e as Error).message)).toEqual(["boom"]);
  await Bun.sleep(20);
  expect(runs).toBe(after);
});
